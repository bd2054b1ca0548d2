import { type Assessment, Decision } from 'nestjs-judgment';
import type { RefundAbuse } from './refund-abuse.judgment';

/** What happens to a refund request. */
export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

/**
 * Refund policy. The thresholds are the demo's calibrated values (see datasets/refund-abuse.json): a Review band
 * [0.30, 0.65) sits between the two automatic Outcomes, so a wobbling answer moves to Review, never across.
 */
@Decision({
  outcomes: RefundOutcome,
  // An escalation nobody resolves within two days is rejected (the customer may ask again).
  review: { outcomes: [RefundOutcome.Escalate], deadline: '48h', onExpiry: RefundOutcome.Reject },
  version: '2',
  outcomeType: 'RefundOutcome',
})
export class RefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  /** Read by decide(); suggested by `judgment eval refund-abuse --suggest` and recorded in judgment.lock.json. */
  readonly thresholds = { reject: 0.65, escalate: 0.3 };

  decide(assessment: Assessment<RefundAbuse>, judgment: RefundAbuse): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    const doubtful = assessment.rating('credibility').below(2.0);
    const frequent = judgment.refund.refundsThisYear >= 3;
    if (abusive.above(this.thresholds.reject)) return RefundOutcome.Reject;
    if (abusive.above(this.thresholds.escalate)) return RefundOutcome.Escalate;
    if (doubtful || frequent) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}
