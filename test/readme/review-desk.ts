import { Injectable } from '@nestjs/common';
import { type Assessment, type AssessmentRecord, AssessmentRecords, Decision, type Reviewer } from 'nestjs-judgment';
import type { RefundAbuse } from './refund-abuse.judgment';
import { RefundOutcome } from './refund.decision';

/** Escalations nobody resolves within 48 hours are rejected by the system (resolver system #deadline). */
@Decision({
  outcomes: RefundOutcome,
  review: { outcomes: [RefundOutcome.Escalate], deadline: '48h', onExpiry: RefundOutcome.Reject },
  name: 'refund-with-deadline',
  outcomeType: 'RefundOutcome',
})
export class RefundWithDeadline implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return RefundOutcome.Reject;
    return abusive.above(0.3) ? RefundOutcome.Escalate : RefundOutcome.Approve;
  }
}

@Injectable()
export class ReviewDesk {
  constructor(private readonly records: AssessmentRecords) {}

  /** The oldest case nobody holds, claimed for this reviewer for 15 minutes (null when the queue is empty). */
  async next(reviewer: Reviewer): Promise<AssessmentRecord | null> {
    const [free] = await this.records.awaitingReview({ unclaimed: true, limit: 1 });
    return free ? this.records.claim(free.id, reviewer, { ttl: '15m' }) : null;
  }

  /** Called every few minutes while the reviewer works the case: the lease stays theirs. */
  heartbeat(recordId: number, reviewer: Reviewer): Promise<AssessmentRecord> {
    return this.records.renew(recordId, reviewer, { ttl: '15m' });
  }

  /** The reviewer puts the case back for someone else. */
  putBack(recordId: number, reviewer: Reviewer): Promise<AssessmentRecord> {
    return this.records.release(recordId, reviewer);
  }
}
