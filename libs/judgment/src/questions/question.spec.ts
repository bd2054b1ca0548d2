import { Classification, Likelihood, Rating } from 'nestjs-judgment';
import { InvalidQuestion } from 'nestjs-judgment/testing';
import { expandQuestions, readQuestions } from './question';

describe('readQuestions()', () => {
  it('accepts a map of declared Questions as it is', () => {
    const questions = { abusive: Likelihood.that('Is it abuse?'), harms: Likelihood.each({ spam: 'Is it spam?' }) };
    expect(readQuestions('RefundAbuse', questions)).toBe(questions);
  });

  it('a value that is not a Question is refused, naming its key', () => {
    expect(() => readQuestions('RefundAbuse', { abusive: 'Is it abuse?' })).toThrow(InvalidQuestion);
    expect(() => readQuestions('RefundAbuse', { abusive: 'Is it abuse?' })).toThrow(
      /RefundAbuse declares "abusive" as something that is not a Question/,
    );
  });

  it('no Questions, or something other than a map, is refused', () => {
    expect(() => readQuestions('RefundAbuse', {})).toThrow(/RefundAbuse declares no Questions/);
    expect(() => readQuestions('RefundAbuse', [Likelihood.that('Is it?')])).toThrow(
      /must return a \{ key: Question \}/,
    );
    expect(() => readQuestions('RefundAbuse', null)).toThrow(InvalidQuestion);
  });
});

describe('expandQuestions()', () => {
  it('expands Likelihood Sets into dotted keys, in declaration order', () => {
    const abusive = Likelihood.that('Is it abuse?');
    const team = Classification.of('Which team?', ['billing', 'technical']);
    const severity = Rating.of('How severe?', ['Low', 'High']);
    const expanded = expandQuestions('Ticket', {
      abusive,
      harms: Likelihood.each({ spam: 'Is it spam?', abuse: 'Is it abusive?' }),
      team,
      flags: Likelihood.each({ urgent: 'Is it urgent?' }),
      severity,
    });
    expect([...expanded.keys()]).toEqual(['abusive', 'harms.spam', 'harms.abuse', 'team', 'flags.urgent', 'severity']);
    expect(expanded.get('abusive')).toBe(abusive);
    expect(expanded.get('team')).toBe(team);
    expect(expanded.get('harms.abuse')).toMatchObject({ kind: 'likelihood', text: 'Is it abusive?', criteria: null });
  });

  it('a direct key equal to an expanded set key is refused, whichever is declared first', () => {
    const direct = Likelihood.that('Is it spam?');
    const set = Likelihood.each({ spam: 'Is it spam?', abuse: 'Is it abusive?' });
    const message =
      /Ticket declares Question "flags\.spam" twice: once directly and once as a label of a Likelihood Set/;
    expect(() => expandQuestions('Ticket', { 'flags.spam': direct, flags: set })).toThrow(InvalidQuestion);
    expect(() => expandQuestions('Ticket', { 'flags.spam': direct, flags: set })).toThrow(message);
    expect(() => expandQuestions('Ticket', { flags: set, 'flags.spam': direct })).toThrow(InvalidQuestion);
    expect(() => expandQuestions('Ticket', { flags: set, 'flags.spam': direct })).toThrow(message);
  });
});
