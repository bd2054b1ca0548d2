import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { AssessmentDecided, judgmentName, ReviewRequested, ReviewResolved } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import { transition } from '../common/transition';
import { RefundAbuse } from './refund-abuse.judgment';
import { RefundOutcome } from './refund.decision';
import { Refund, RefundStatus } from './refund.entity';

/**
 * The Actions on refunds. Each is idempotent: a refund is approved or rejected only while it is still open, so a
 * repeated event (a queue retry, a second assessment) changes nothing.
 */
@Injectable()
export class RefundActions {
  private readonly logger = new Logger('SupportDesk');

  constructor(@InjectRepository(Refund) private readonly refunds: Repository<Refund>) {}

  @OnEvent(AssessmentDecided.NAME)
  async decided(event: AssessmentDecided): Promise<void> {
    if (!(event.judgment instanceof RefundAbuse)) return;
    if (event.awaitsReview) return; // in Review: the reviewer's Resolution settles it
    await this.settle(event.judgment.refund.id, event.outcome, [RefundStatus.Pending]);
  }

  @OnEvent(ReviewRequested.NAME)
  async reviewRequested(event: ReviewRequested): Promise<void> {
    if (!(event.judgment instanceof RefundAbuse)) return;
    await transition(this.refunds, event.judgment.refund.id, [RefundStatus.Pending], RefundStatus.InReview);
  }

  @OnEvent(ReviewResolved.NAME)
  async resolved(event: ReviewResolved): Promise<void> {
    if (event.record.judgment !== judgmentName(RefundAbuse) || event.record.subjectId === null) return;
    await this.settle(Number(event.record.subjectId), event.resolution, [RefundStatus.Pending, RefundStatus.InReview]);
  }

  private async settle(id: number, outcome: unknown, from: RefundStatus[]): Promise<void> {
    const to =
      outcome === RefundOutcome.Approve
        ? RefundStatus.Approved
        : outcome === RefundOutcome.Reject
          ? RefundStatus.Rejected
          : null;
    if (to && (await transition(this.refunds, id, from, to))) this.logger.log(`Refund #${id} ${to}.`);
  }
}
