import type { Assessment } from '../assessment/assessment';
import type { Unassessed } from '../assessment/unassessed';
import type { Judgment } from '../definition/judgment.decorator';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';

/**
 * Type-level switch for apps that run with `throwOnFailure: false`. Augment it so `judge.assess()` is typed as
 * returning `Assessment | Unassessed`:
 *
 * ```ts
 * declare module 'nestjs-judgment' {
 *   interface JudgmentTypeConfig { throwOnFailure: false }
 * }
 * ```
 */
export interface JudgmentTypeConfig {}

/** What `judge.assess()` resolves to: an Assessment, or also Unassessed when the app declares throwOnFailure false. */
export type AssessResult<J extends Judgment> = JudgmentTypeConfig extends { throwOnFailure: false }
  ? Assessment<J> | Unassessed<J, AssessmentRecord>
  : Assessment<J>;

/** Options of `judge.dispatch()`. */
export interface DispatchOptions {
  /** Milliseconds before the job may run. */
  delay?: number;
  /** Another assess queue than the configured one. */
  queue?: string;
  /** BullMQ priority (1 is highest). */
  priority?: number;
}
