/**
 * Where a record's review deadline is handed when it enters Review. With the queue on, the queue provides it (a
 * delayed job per record); without one, nothing is scheduled and the sweep (ReviewDeadlines) finds due records.
 */
export interface ReviewDeadlineScheduler {
  /** Arranges for record `recordId` to be expired at `deadlineAt`. */
  schedule(recordId: number, deadlineAt: Date): Promise<void>;
}

/** Injection token of the optional ReviewDeadlineScheduler. */
export const REVIEW_DEADLINE_SCHEDULER = Symbol('REVIEW_DEADLINE_SCHEDULER');
