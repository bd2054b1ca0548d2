import { type Assessment, Decision } from 'nestjs-judgment';
import type { RefundAbuse } from './refund-abuse.judgment';

export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], version: '2' })
export class RefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>, judgment: RefundAbuse): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    const doubtful = assessment.rating('credibility').below(2.0);
    const frequent = judgment.refund.refundsThisYear >= 3; // a fact the app already knows

    if (abusive.above(0.65)) return RefundOutcome.Reject;
    if (abusive.above(0.3)) return RefundOutcome.Escalate;
    if (doubtful || frequent) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}
