import { Injectable } from '@nestjs/common';
import { AssessmentRecords } from '../records/assessment-records.service';

/** How old the queue's counts per Judgment may be. */
export const QUEUE_COUNTS_TTL_MS = 5_000;

/**
 * The counts per Judgment that head the queue page, counted at most once per QUEUE_COUNTS_TTL_MS (5 s) however many
 * reviewers load it: a count reads every awaiting record (about 25 ms at 30,000 in Review), a page must not.
 */
@Injectable()
export class QueueCounts {
  private cached: { readonly at: number; readonly counts: Promise<Record<string, number>> } | null = null;

  constructor(private readonly records: AssessmentRecords) {}

  get(now = Date.now()): Promise<Record<string, number>> {
    if (this.cached !== null && now - this.cached.at < QUEUE_COUNTS_TTL_MS) return this.cached.counts;
    const counts = this.records.backlog();
    const entry = { at: now, counts };
    this.cached = entry;
    // A failed count is not kept: the next page counts again.
    counts.catch(() => {
      if (this.cached === entry) this.cached = null;
    });
    return counts;
  }
}
