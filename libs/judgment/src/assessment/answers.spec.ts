import { Assessment } from 'nestjs-judgment';
import { Provenance } from 'nestjs-judgment/drivers';
import { COMPUTE_ONLY } from '../decision/apply-decision';
import { LikelihoodAnswer } from './answers';
import { Department, Harm, RefundAbuse, SupportTicket, aRefund, aTicket } from '../testing/fixtures.spec-helpers';

const refundAbuse = new RefundAbuse(aRefund());
const ticket = new SupportTicket(aTicket());
const provenance = new Provenance('jev', 'jev-1.13.0');

const likelihood = (p: number) =>
  Assessment.fromAnswers(refundAbuse, refundAbuse.questions(), { abusive: p }, provenance, COMPUTE_ONLY).likelihood(
    'abusive',
  );
const rating = (probabilities: number[]) =>
  Assessment.fromAnswers(
    refundAbuse,
    refundAbuse.questions(),
    { credibility: probabilities },
    provenance,
    COMPUTE_ONLY,
  ).rating('credibility');
const department = (probabilities: Record<string, number>) =>
  Assessment.fromAnswers(
    ticket,
    ticket.questions(),
    { department: probabilities },
    provenance,
    COMPUTE_ONLY,
  ).classification('department');
const language = (probabilities: Record<string, number>) =>
  Assessment.fromAnswers(
    ticket,
    ticket.questions(),
    { language: probabilities },
    provenance,
    COMPUTE_ONLY,
  ).classification('language');
const harms = (probabilities: Record<string, number>) =>
  Assessment.fromAnswers(ticket, ticket.questions(), { harms: probabilities }, provenance, COMPUTE_ONLY).likelihoodSet(
    'harms',
  );

describe('Likelihood answers', () => {
  it('probability is the answer', () => {
    expect(likelihood(0.42).probability).toBe(0.42);
  });

  it('above is inclusive: .65 is above .65, .64 is not', () => {
    expect(likelihood(0.65).above(0.65)).toBe(true);
    expect(likelihood(0.64).above(0.65)).toBe(false);
  });

  it('below is strict: .30 is not below .30, .29 is', () => {
    expect(likelihood(0.3).below(0.3)).toBe(false);
    expect(likelihood(0.29).below(0.3)).toBe(true);
  });

  it('between is the half-open band [a, b): between(.30, .65) is true for .30 and .50, false for .65 and .29', () => {
    expect(likelihood(0.3).between(0.3, 0.65)).toBe(true);
    expect(likelihood(0.5).between(0.3, 0.65)).toBe(true);
    expect(likelihood(0.65).between(0.3, 0.65)).toBe(false);
    expect(likelihood(0.29).between(0.3, 0.65)).toBe(false);
  });

  it('a Likelihood has no confidence', () => {
    expect('confidence' in likelihood(0.5)).toBe(false);
  });
});

describe('Classification answers', () => {
  it('label is the most probable label', () => {
    expect(language({ english: 0.15, italian: 0.8, other: 0.05 }).label).toBe('italian');
  });

  it('ties go to the earlier declared label', () => {
    expect(language({ english: 0.1, italian: 0.45, other: 0.45 }).label).toBe('italian');
    expect(language({ english: 0.45, italian: 0.1, other: 0.45 }).label).toBe('english');
  });

  it('ties go to the earlier declared label whatever order the answer map has', () => {
    expect(language({ other: 0.45, italian: 0.1, english: 0.45 }).label).toBe('english');
  });

  it('label is null when the escape option none wins', () => {
    const answer = department({ billing: 0.1, technical: 0.1, sales: 0.1, none: 0.7 });
    expect(answer.label).toBeNull();
    expect(answer.is('none')).toBe(true);
    expect(answer.is(Department.Billing)).toBe(false);
    expect(answer.probabilityOf('none')).toBe(0.7);
  });

  it('is() is true only for the top label', () => {
    const answer = language({ english: 0.15, italian: 0.8, other: 0.05 });
    expect(answer.is('italian')).toBe(true);
    expect(answer.is('english')).toBe(false);
  });

  it('is(none) is false when a label wins', () => {
    expect(department({ billing: 0.7, technical: 0.1, sales: 0.1, none: 0.1 }).is('none')).toBe(false);
  });

  it('probabilityOf() gives a label its probability', () => {
    const answer = language({ english: 0.15, italian: 0.8, other: 0.05 });
    expect(answer.probabilityOf('english')).toBe(0.15);
    expect(answer.probabilityOf('other')).toBe(0.05);
  });

  it('probabilities are ordered as declared (the escape option last)', () => {
    const answer = department({ none: 0.05, sales: 0.05, technical: 0.2, billing: 0.7 });
    expect(Object.entries(answer.probabilities)).toEqual([
      ['billing', 0.7],
      ['technical', 0.2],
      ['sales', 0.05],
      ['none', 0.05],
    ]);
    expect(Object.isFrozen(answer.probabilities)).toBe(true);
  });

  it('confidence is the top probability minus the runner-up: {english .15, italian .80, other .05} → .65', () => {
    expect(language({ english: 0.15, italian: 0.8, other: 0.05 }).confidence).toBeCloseTo(0.65, 12);
  });

  it('confidence is 0 on a tie at the top', () => {
    expect(language({ english: 0.1, italian: 0.45, other: 0.45 }).confidence).toBe(0);
  });
});

describe('Rating answers', () => {
  it('[.10, .20, .60, .10] → level 2, its name, expected 1.7, confidence .40', () => {
    const answer = rating([0.1, 0.2, 0.6, 0.1]);
    expect(answer.level).toBe(2);
    expect(answer.levelName).toBe('Plausible');
    expect(answer.expected).toBeCloseTo(1.7, 12);
    expect(answer.confidence).toBeCloseTo(0.4, 12);
    expect(answer.probabilities).toEqual([0.1, 0.2, 0.6, 0.1]);
  });

  it('[0, .5, .5, 0] → expected 1.5; the tie goes to the lower level', () => {
    const answer = rating([0, 0.5, 0.5, 0]);
    expect(answer.expected).toBe(1.5);
    expect(answer.level).toBe(1);
    expect(answer.confidence).toBe(0);
  });

  it('expected is not renormalised: [0, .3, .5, .2] → 1.9, [0, 0, 0, .5] → 1.5', () => {
    expect(rating([0, 0.3, 0.5, 0.2]).expected).toBeCloseTo(1.9, 12);
    expect(rating([0, 0, 0, 0.5]).expected).toBe(1.5);
  });

  it('thresholds compare expected: above ≥, below <, between [a, b)', () => {
    const answer = rating([0, 0.5, 0.5, 0]); // expected 1.5, level 1
    expect(answer.above(1.5)).toBe(true);
    expect(answer.above(1.51)).toBe(false);
    expect(answer.below(1.5)).toBe(false);
    expect(answer.below(2)).toBe(true);
    expect(answer.between(1.5, 2)).toBe(true);
    expect(answer.between(1, 1.5)).toBe(false);
  });
});

describe('Likelihood Set answers', () => {
  it("of() gives a label's Likelihood", () => {
    const answer = harms({ spam: 0.1, abuse: 0.02, phishing: 0.6 });
    expect(answer.of(Harm.Phishing)).toBeInstanceOf(LikelihoodAnswer);
    expect(answer.of(Harm.Phishing).probability).toBe(0.6);
    expect(answer.of(Harm.Spam).above(0.1)).toBe(true);
  });

  it('max() is a Likelihood holding the highest probability', () => {
    const max = harms({ spam: 0.1, abuse: 0.72, phishing: 0.6 }).max();
    expect(max).toBeInstanceOf(LikelihoodAnswer);
    expect(max.probability).toBe(0.72);
  });

  it('labelsAbove() lists labels ≥ the threshold, highest first', () => {
    expect(harms({ spam: 0.5, abuse: 0.49, phishing: 0.9 }).labelsAbove(0.5)).toEqual(['phishing', 'spam']);
    expect(harms({ spam: 0.1, abuse: 0.2, phishing: 0.3 }).labelsAbove(0.5)).toEqual([]);
  });

  it('labelsAbove() is stable: ties keep declaration order', () => {
    expect(harms({ spam: 0.7, abuse: 0.9, phishing: 0.7 }).labelsAbove(0.5)).toEqual(['abuse', 'spam', 'phishing']);
    expect(harms({ phishing: 0.7, abuse: 0.7, spam: 0.7 }).labelsAbove(0.7)).toEqual(['spam', 'abuse', 'phishing']);
  });

  it('likelihoods are label → Likelihood, in declaration order', () => {
    const answer = harms({ phishing: 0.6, spam: 0.1, abuse: 0.02 });
    expect(Object.entries(answer.likelihoods).map(([label, l]) => [label, l.probability])).toEqual([
      ['spam', 0.1],
      ['abuse', 0.02],
      ['phishing', 0.6],
    ]);
  });

  it('a Likelihood Set has no confidence', () => {
    expect('confidence' in harms({ spam: 0.1, abuse: 0.2, phishing: 0.3 })).toBe(false);
  });
});
