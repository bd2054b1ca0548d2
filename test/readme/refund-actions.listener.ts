import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { AssessmentDecided, ReviewRequested } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import { RefundAbuse } from './refund-abuse.judgment';
import { RefundOutcome } from './refund.decision';
import { Refund } from './refund.entity';

@Injectable()
export class RefundActions {
  private readonly logger = new Logger(RefundActions.name);

  constructor(@InjectRepository(Refund) private readonly refunds: Repository<Refund>) {}

  @OnEvent(AssessmentDecided.NAME)
  async act(event: AssessmentDecided): Promise<void> {
    if (!(event.judgment instanceof RefundAbuse)) return;
    if (event.awaitsReview) return; // in Review: the reviewer's Resolution settles it
    const status = { [RefundOutcome.Approve]: 'approved', [RefundOutcome.Reject]: 'rejected' } as const;
    const to = status[event.outcome as keyof typeof status];
    if (!to) return;
    // Idempotent: only a refund that is still pending moves, so a repeated event changes nothing.
    await this.refunds.update({ id: event.judgment.refund.id, status: 'pending' }, { status: to });
  }

  @OnEvent(ReviewRequested.NAME)
  async askReviewer(event: ReviewRequested): Promise<void> {
    if (!(event.judgment instanceof RefundAbuse)) return;
    await this.refunds.update({ id: event.judgment.refund.id, status: 'pending' }, { status: 'in_review' });
    this.logger.log(`Refund #${event.judgment.refund.id} awaits a reviewer (record #${event.record?.id}).`);
  }
}
