import { Decision } from 'nestjs-judgment';
import { InvalidDecision } from 'nestjs-judgment/testing';
import { decisionMetadata } from './decision.decorator';
import { RefundOutcome } from '../testing/fixtures.spec-helpers';

const declare = (review: unknown) => {
  @Decision({ outcomes: RefundOutcome, review: review as never, name: 'deadline-test' })
  class Declared {}
  return decisionMetadata(Declared);
};

describe('@Decision({ review: { outcomes, deadline, onExpiry } })', () => {
  it('keeps the review Outcomes, the deadline in milliseconds and the onExpiry Outcome', () => {
    const metadata = declare({ outcomes: [RefundOutcome.Escalate], deadline: '48h', onExpiry: RefundOutcome.Reject });
    expect([...metadata.review]).toEqual([RefundOutcome.Escalate]);
    expect(metadata.reviewDeadline).toEqual({ after: 48 * 3600 * 1000, declared: '48h', onExpiry: 'reject' });
  });

  it('the list form and the object form without a deadline: no deadline, records wait', () => {
    expect(declare([RefundOutcome.Escalate]).reviewDeadline).toBeNull();
    expect(declare({ outcomes: [RefundOutcome.Escalate] }).reviewDeadline).toBeNull();
    expect([...declare({ outcomes: [RefundOutcome.Escalate] }).review]).toEqual([RefundOutcome.Escalate]);
  });

  it('accepts milliseconds and the units of ms (s, m, h, d, words)', () => {
    const after = (deadline: unknown) =>
      declare({ outcomes: [RefundOutcome.Escalate], deadline, onExpiry: RefundOutcome.Approve }).reviewDeadline!.after;
    expect(after(90_000)).toBe(90_000);
    expect(after('90s')).toBe(90_000);
    expect(after('15m')).toBe(900_000);
    expect(after('7d')).toBe(7 * 24 * 3600 * 1000);
    expect(after('2 days')).toBe(2 * 24 * 3600 * 1000);
  });

  it.each([
    ['a word', 'soon', /"soon" cannot be parsed as a duration/],
    ['no unit', '48', /"48" has no unit/],
    ['zero', '0s', /"0s" is outside 1 second to 366 days/],
    ['a negative duration', '-1h', /"-1h" is outside/],
    ['more than 366 days', '2y', /"2y" is outside 1 second to 366 days/],
    ['not a string or number', { hours: 48 }, /an object is not a duration/],
    ['NaN', NaN, /cannot be parsed/],
  ])('refuses a deadline that is %s, naming it', (_kind, deadline, message) => {
    const review = { outcomes: [RefundOutcome.Escalate], deadline, onExpiry: RefundOutcome.Reject };
    expect(() => declare(review)).toThrow(InvalidDecision);
    expect(() => declare(review)).toThrow(message);
  });

  it('refuses a deadline without onExpiry: there is no default Outcome', () => {
    expect(() => declare({ outcomes: [RefundOutcome.Escalate], deadline: '48h' })).toThrow(
      /deadline-test declares review.deadline "48h" without review.onExpiry.*no default/,
    );
  });

  it('refuses onExpiry without a deadline', () => {
    expect(() => declare({ outcomes: [RefundOutcome.Escalate], onExpiry: RefundOutcome.Reject })).toThrow(
      /onExpiry without review.deadline/,
    );
  });

  it('refuses an onExpiry that is not an Outcome of the Decision', () => {
    expect(() =>
      declare({ outcomes: [RefundOutcome.Escalate], deadline: '1h', onExpiry: 'shrug' as RefundOutcome }),
    ).toThrow(/review.onExpiry "shrug", which is not one of its outcomes \("approve", "escalate", "reject"\)/);
  });

  it('refuses an onExpiry that itself requires Review', () => {
    expect(() =>
      declare({ outcomes: [RefundOutcome.Escalate], deadline: '1h', onExpiry: RefundOutcome.Escalate }),
    ).toThrow(/review.onExpiry "escalate", which itself requires Review/);
  });

  it('refuses a review option that is neither a list nor { outcomes }', () => {
    expect(() => declare({ deadline: '1h' })).toThrow(/neither a list of Outcomes nor/);
  });
});
