import type { Queue } from 'bullmq';
import type { ReviewDeadlineScheduler } from '../recording/review-deadline.scheduler';
import type { ResolvedQueueOptions } from '../judgment.options';
import { type ExpireJobData, KEEP_JOBS, expireJobId } from './queue.jobs-data';

/**
 * With the queue on, a record's review deadline is a delayed job on the review queue (kept in Redis, so it fires
 * after a restart too); ReviewExpiryProcessor expires the record when it comes due.
 */
export class QueuedReviewDeadlines implements ReviewDeadlineScheduler {
  constructor(
    private readonly options: ResolvedQueueOptions,
    private readonly queue: Queue,
  ) {}

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
