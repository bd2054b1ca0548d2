import { Decision } from 'nestjs-judgment';
import { InvalidDecision } from 'nestjs-judgment/testing';
import { decisionMetadata } from './decision.decorator';
import { RefundOutcome } from '../testing/fixtures.spec-helpers';

const declare = (review: unknown, name = 'reviewers-test') => {
  @Decision({ outcomes: RefundOutcome, review: review as never, name })
  class Declared {}
  return decisionMetadata(Declared);
};

describe('@Decision({ review: { outcomes, reviewers } })', () => {
  it('keeps the number of independent Resolutions a case needs; 1 by default and in the list form', () => {
    expect(declare({ outcomes: [RefundOutcome.Escalate], reviewers: 2 }).reviewers).toBe(2);
    expect(declare({ outcomes: [RefundOutcome.Escalate], reviewers: 5 }).reviewers).toBe(5);
    expect(declare({ outcomes: [RefundOutcome.Escalate] }).reviewers).toBe(1);
    expect(declare([RefundOutcome.Escalate]).reviewers).toBe(1);
    expect(declare(undefined).reviewers).toBe(1);
  });

  it.each([
    ['0', 0],
    ['a negative count', -2],
    ['more than 5', 6],
    ['a fraction', 1.5],
    ['text', '2'],
    ['NaN', Number.NaN],
  ])('refuses %s at declaration, naming the Decision and the bound', (_, reviewers) => {
    const attempt = () => declare({ outcomes: [RefundOutcome.Escalate], reviewers }, 'listing-moderation');
    expect(attempt).toThrow(InvalidDecision);
    expect(attempt).toThrow(
      /@Decision\(\) of listing-moderation has review\.reviewers .*: give a whole number from 1 to 5/,
    );
  });
});
