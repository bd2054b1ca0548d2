import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions, ResolvedQueueOptions } from '../judgment.options';
import type { ReviewDeadlineScheduler } from '../recording/review-deadline.scheduler';
import { REVIEW_QUEUE } from './queue.constants';
import { type ExpireJobData, KEEP_JOBS, expireJobId } from './queue.jobs-data';

/**
 * With the queue on, a record's review deadline is a delayed job on the review queue (kept in Redis, so it fires
 * after a restart too); ReviewExpiryProcessor expires the record when it comes due.
 */
@Injectable()
export class QueuedReviewDeadlines implements ReviewDeadlineScheduler {
  private readonly options: ResolvedQueueOptions;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    @Inject(REVIEW_QUEUE) private readonly queue: Queue,
  ) {
    this.options = options.queue;
  }

  async schedule(recordId: number, deadlineAt: Date): Promise<void> {
    const data: ExpireJobData = { record: recordId };
    await this.queue.add('expire', data, {
      jobId: expireJobId(recordId),
      delay: Math.max(0, deadlineAt.getTime() - Date.now()),
      attempts: this.options.decideAttempts,
      backoff: this.options.backoff,
      ...KEEP_JOBS,
    });
  }
}
