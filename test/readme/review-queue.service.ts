import { Injectable } from '@nestjs/common';
import { type AssessmentRecord, AssessmentRecords } from 'nestjs-judgment';
import { RefundAbuse } from './refund-abuse.judgment';
import { RefundOutcome } from './refund.decision';

@Injectable()
export class ReviewQueue {
  constructor(private readonly records: AssessmentRecords) {}

  /** The refunds a person must look at, oldest first; the next page starts after the last id of this one. */
  waiting(after?: number): Promise<AssessmentRecord[]> {
    return this.records.awaitingReview({ judgment: RefundAbuse, limit: 20, after });
  }

  /** A reviewer settles one: the record keeps the automatic Outcome and gains the Resolution and the reviewer. */
  approve(record: AssessmentRecord, staffId: string): Promise<AssessmentRecord> {
    return this.records.resolve(record, RefundOutcome.Approve, { type: 'staff', id: staffId });
  }
}
