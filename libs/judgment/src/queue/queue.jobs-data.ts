import type { PaidAnswers } from '../judge/judge.types';
import type { JudgmentPayload } from './judgment.payload';

/** When the outage a job is riding out began (epoch ms), and how many times it waited for it. */
export interface OutageMarks {
  readonly outageSince?: number;
  readonly outageRetries?: number;
}

/** Data of an assess job. */
export interface AssessJobData extends OutageMarks {
  readonly judgment: JudgmentPayload;
}

/** Data of a decide job: the record to decide (by id) and the Judgment it was assessed for. */
export interface DecideJobData extends OutageMarks {
  readonly record: number;
  readonly judgment: JudgmentPayload;
}

/**
 * What the assess job stores in its progress so a later run resumes there: the record once the Judge recorded the
 * Assessment, or the paid answers the Judge could not record (an outage), to record without asking the Engine again.
 */
export type AssessCheckpoint = { readonly record: number } | { readonly paid: PaidAnswers };

/** How long finished jobs are kept: completed ones make re-added ids duplicates (idempotency), failed ones are evidence. */
export const KEEP_JOBS = {
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;

/** The id of a new assess job. Ids never contain `:` and are never all digits (BullMQ rules for custom ids). */
export function assessJobId(dispatchId: string): string {
  return `assess-${dispatchId}`;
}

/** The decide job's id, derived from its assess job's, so a retried assess job cannot chain a second decide job. */
export function decideJobId(assessId: string): string {
  return `decide-${assessId.replace(/^assess-/, '')}`;
}
