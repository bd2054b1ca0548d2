import { Injectable } from '@nestjs/common';
import { type Decided, Judge, Unassessed } from 'nestjs-judgment';
import { RefundAbuse } from './refund-abuse.judgment';
import type { RefundOutcome } from './refund.decision';
import type { Refund } from './refund.entity';

/** With `throwOnFailure: false`, a failed attempt comes back as Unassessed instead of being thrown. */
@Injectable()
export class LenientRefundRequests {
  constructor(private readonly judge: Judge) {}

  async decide(refund: Refund): Promise<Decided<RefundOutcome> | { unassessed: string; record: number | null }> {
    const result = await this.judge.assess(new RefundAbuse(refund));
    if (result instanceof Unassessed) {
      // No answers and no Outcome: never fall back to a default. The attempt is recorded for audit.
      return { unassessed: result.error.name, record: result.record?.id ?? null };
    }
    return result.outcome<RefundOutcome>(); // the Outcome, or AwaitingReview
  }
}
