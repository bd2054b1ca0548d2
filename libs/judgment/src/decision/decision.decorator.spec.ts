import { Decision } from 'nestjs-judgment';
import { InvalidDecision } from 'nestjs-judgment/testing';
import { decisionMetadata } from './decision.decorator';
import { RefundDecision, RefundOutcome, RouteTicket, StrictRefundDecision } from '../testing/fixtures.spec-helpers';

enum Priority {
  Low,
  High = 5,
  Negative = -1,
}

describe('@Decision()', () => {
  it('keeps the outcomes, the review outcomes and the version (as a string)', () => {
    const metadata = decisionMetadata(RefundDecision);
    expect(metadata.outcomes).toEqual(['approve', 'escalate', 'reject']);
    expect([...metadata.review]).toEqual([RefundOutcome.Escalate]);
    expect(metadata.version).toBe('2');
    expect(decisionMetadata(RouteTicket).version).toBe('1');
  });

  it('without a version, the version is null', () => {
    expect(decisionMetadata(StrictRefundDecision).version).toBeNull();
  });

  it('the name defaults to the class name; an explicit name replaces it', () => {
    expect(decisionMetadata(RefundDecision).name).toBe('RefundDecision');
    expect(decisionMetadata(StrictRefundDecision).name).toBe('strict-refund');
  });

  it('outcomeType names the Outcome enum when declared, and is null otherwise: never the Decision name', () => {
    @Decision({ outcomes: RefundOutcome, outcomeType: 'RefundOutcome' })
    class Typed {}
    expect(decisionMetadata(RefundDecision).outcomeType).toBeNull();
    expect(decisionMetadata(Typed).outcomeType).toBe('RefundOutcome');
  });

  it('numeric enums: the reverse mappings are not outcomes', () => {
    @Decision({ outcomes: Priority, review: [Priority.High] })
    class Prioritise {}
    expect(decisionMetadata(Prioritise).outcomes).toEqual([0, 5, -1]);
    expect([...decisionMetadata(Prioritise).review]).toEqual([5]);
  });

  it('a review outcome that is not in the outcomes enum is refused', () => {
    expect(() => Decision({ outcomes: RefundOutcome, review: ['maybe' as RefundOutcome] })(class Bad {})).toThrow(
      InvalidDecision,
    );
    expect(() => Decision({ outcomes: RefundOutcome, review: ['maybe' as RefundOutcome] })(class Bad {})).toThrow(
      /"maybe".*"approve", "escalate", "reject"/,
    );
  });

  it('a numeric enum name given for Review is refused (only its values are outcomes)', () => {
    expect(() => Decision({ outcomes: Priority, review: ['High' as never] })(class Bad {})).toThrow(InvalidDecision);
  });

  it('missing or empty outcomes are refused', () => {
    expect(() => Decision({} as never)(class NoOutcomes {})).toThrow(/NoOutcomes needs \{ outcomes/);
    expect(() => Decision({ outcomes: {} })(class EmptyOutcomes {})).toThrow(/has no members/);
  });

  it('an undecorated class has no Decision metadata: InvalidDecision says how to declare it', () => {
    class NotADecision {}
    expect(() => decisionMetadata(NotADecision)).toThrow(InvalidDecision);
    expect(() => decisionMetadata(NotADecision)).toThrow(/NotADecision is not a Decision.*@Decision/);
  });
});
