import { createHash } from 'node:crypto';
import { Classification, Likelihood, Rating, type QuestionMap } from 'nestjs-judgment';
import { questionsFingerprint } from './questions-fingerprint';

/** A question set built fresh on every call; `change` alters one piece of it. */
const questions = (change: Partial<Record<string, unknown>> = {}): QuestionMap => {
  const v = {
    abusiveText: 'Is it abuse?',
    meansTrue: 'Not entitled',
    meansFalse: 'Good faith',
    labels: { billing: 'Invoices', technical: null } as Record<string, string | null>,
    orNone: false,
    levels: ['Low', 'High'],
    harms: { spam: 'Is it spam?', abuse: 'Is it abusive?' } as Record<string, string>,
    abusiveKind: 'likelihood',
    ...change,
  };
  const team = Classification.of('Which team?', v.labels);
  return {
    abusive:
      v.abusiveKind === 'likelihood'
        ? Likelihood.that(v.abusiveText as string).means({ true: v.meansTrue as string, false: v.meansFalse as string })
        : Rating.of(v.abusiveText as string, ['No', 'Yes']),
    team: v.orNone ? team.orNone() : team,
    severity: Rating.of('How severe?', v.levels as string[]),
    harms: Likelihood.each(v.harms as Record<string, string>),
  };
};

describe('questionsFingerprint()', () => {
  it('is the SHA-256 hex of the question set, the same for the same declarations', () => {
    const fingerprint = questionsFingerprint(questions());
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(questionsFingerprint(questions())).toBe(fingerprint);
  });

  it('hashes the RFC 8785 canonical JSON of each key → [kind, text, criteria]', () => {
    const abusive = Likelihood.that('Is this refund request an attempt to abuse the refund policy?').means({
      true: 'Likely a claim the customer is not entitled to',
      false: 'A good-faith claim',
    });
    const canonical =
      '{"abusive":["likelihood","Is this refund request an attempt to abuse the refund policy?",' +
      '{"false":"A good-faith claim","true":"Likely a claim the customer is not entitled to"}]}';
    expect(questionsFingerprint({ abusive })).toBe(createHash('sha256').update(canonical).digest('hex'));
  });

  it.each<[string, Partial<Record<string, unknown>>]>([
    ['the wording', { abusiveText: 'Is it policy abuse?' }],
    ['the kind', { abusiveKind: 'rating' }],
    ['the criteria: the means() true text', { meansTrue: 'Not entitled at all' }],
    ['the criteria: the means() false text', { meansFalse: 'An honest claim' }],
    ['a label', { labels: { billing: 'Invoices', tech: null } }],
    ['a label description', { labels: { billing: 'Payments', technical: null } }],
    ['the label order', { labels: { technical: null, billing: 'Invoices' } }],
    ['a level', { levels: ['Low', 'Very high'] }],
    ['the level order', { levels: ['High', 'Low'] }],
    ["a set label's question", { harms: { spam: 'Is it unsolicited?', abuse: 'Is it abusive?' } }],
    ['a set label', { harms: { spam: 'Is it spam?', insult: 'Is it abusive?' } }],
    ['orNone()', { orNone: true }],
  ])('changing %s changes it', (_, change) => {
    expect(questionsFingerprint(questions(change))).not.toBe(questionsFingerprint(questions()));
  });

  it('a Likelihood with means() differs from one without', () => {
    const plain = { abusive: Likelihood.that('Is it abuse?') };
    const explained = { abusive: Likelihood.that('Is it abuse?').means({ true: 'Yes', false: 'No' }) };
    expect(questionsFingerprint(explained)).not.toBe(questionsFingerprint(plain));
  });

  it('renaming a top-level key changes it', () => {
    const { abusive, ...rest } = questions();
    expect(questionsFingerprint({ ...rest, abuse: abusive })).not.toBe(questionsFingerprint(questions()));
  });

  it('the order of the top-level keys does not change it', () => {
    const { abusive, team, severity, harms } = questions();
    expect(questionsFingerprint({ harms, severity, team, abusive })).toBe(questionsFingerprint(questions()));
  });
});
