import { Likelihood, LikelihoodSet } from 'nestjs-judgment';
import { InvalidQuestion } from 'nestjs-judgment/testing';
import { likelihoodsOf } from './question';
import { HARM_QUESTIONS, Harm } from '../testing/fixtures.spec-helpers';

describe('Likelihood Set', () => {
  it('Likelihood.each() builds a Likelihood Set whose labels keep declaration order', () => {
    const set = Likelihood.each({ spam: 'Is it spam?', abuse: 'Is it abusive?' });
    expect(set).toBeInstanceOf(LikelihoodSet);
    expect(set.kind).toBe('likelihood_set');
    expect(set.labels).toEqual(['spam', 'abuse']);
    expect(set.textOf('abuse')).toBe('Is it abusive?');
  });

  it('each label becomes an independent Likelihood with its complete question and no criteria', () => {
    const likelihoods = likelihoodsOf(Likelihood.each({ spam: 'Is it spam?', abuse: 'Is it abusive?' }));
    expect(likelihoods.map(([label, l]) => [label, l.kind, l.text, l.criteria])).toEqual([
      ['spam', 'likelihood', 'Is it spam?', null],
      ['abuse', 'likelihood', 'Is it abusive?', null],
    ]);
  });

  it('labels from a Record<Enum, string> are the enum values', () => {
    expect(Likelihood.each(HARM_QUESTIONS).labels).toEqual([Harm.Spam, Harm.Abuse, Harm.Phishing]);
  });

  it('at least 1 label is needed', () => {
    expect(() => Likelihood.each({})).toThrow(InvalidQuestion);
    expect(() => Likelihood.each({})).toThrow(/at least 1 label.*0 given/);
    expect(Likelihood.each({ spam: 'Is it spam?' }).labels).toEqual(['spam']);
  });

  it('a dot in a label is refused', () => {
    expect(() => Likelihood.each({ 'spam.links': 'Does it advertise links?' })).toThrow(InvalidQuestion);
    expect(() => Likelihood.each({ 'spam.links': 'Does it advertise links?' })).toThrow(
      /cannot contain a dot.*"spam\.links"/,
    );
  });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['whitespace-only', '  '],
    ['not a string', 1],
  ])("a label's blank question is refused: %s", (_, text) => {
    expect(() => Likelihood.each({ spam: 'Is it spam?', abuse: text as string })).toThrow(InvalidQuestion);
    expect(() => Likelihood.each({ spam: 'Is it spam?', abuse: text as string })).toThrow(
      /label "abuse" needs its text/,
    );
  });

  it('a blank label is refused', () => {
    expect(() => Likelihood.each({ ' ': 'Is it spam?' })).toThrow(/label cannot be blank/);
  });

  it('a list instead of a label → question map is refused', () => {
    expect(() => Likelihood.each(['Is it spam?'] as never)).toThrow(/supplies its complete question/);
  });
});
