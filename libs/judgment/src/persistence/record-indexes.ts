/** The rows of the awaiting-Review list: the WHERE of its partial indexes (entity and migration share it). */
export const AWAITING_REVIEW = 'review_requested_at IS NOT NULL AND resolved_at IS NULL';
/** The rows of the Unassessed list: the WHERE of its partial indexes. */
export const UNASSESSED = 'failure_type IS NOT NULL';
/** The records a queued job wrote: what a re-run of the job looks up (the job index's WHERE). */
export const WRITTEN_BY_JOB = 'job_id IS NOT NULL';
/** The rows the deadline sweep reads: a deadline set, not yet resolved (the review-deadline index's WHERE). */
export const DEADLINE_PENDING = 'review_deadline_at IS NOT NULL AND resolved_at IS NULL';
/**
 * The claim's holder as one key, `ARRAY[type, id]` (PostgreSQL): the claim-key index's expression, so the records one
 * reviewer holds are one equality on it. `type` and `id` are the columns as the statement names them.
 */
export function claimHolderKey(type = 'claim_holder_type', id = 'claim_holder_id'): string {
  return `ARRAY[CAST(${type} AS text), CAST(${id} AS text)]`;
}
