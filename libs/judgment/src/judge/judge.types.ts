import type { Assessment, EncodedAnswer } from '../assessment/assessment';
import type { Unassessed } from '../assessment/unassessed';
import type { Judgment } from '../definition/judgment.decorator';
import type { LimitMode } from '../engines/engine.interface';
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

/** What `judge.attempt()` resolves to: what `assess()` would, and the record the attempt was written to. */
export interface RecordedAttempt<J extends Judgment> {
  readonly result: Assessment<J> | Unassessed<J, AssessmentRecord>;
  /** The attempt's record; null when nothing was written (persistence off, or a best-effort write failed). */
  readonly record: AssessmentRecord | null;
}

/**
 * Answers an Engine was paid for, in a form a queue job can keep: those of an Assessment that could not be recorded
 * (AssessmentNotRecorded during an outage), or those of a round that failed after some of its Questions were
 * answered. Given back to `attempt()`, they are used instead of asking the Engine again: only the Questions they leave
 * unanswered are asked (none, for a whole Assessment).
 */
export interface PaidAnswers {
  /** By declared key (a Likelihood Set's as `{ label: p }`) or by asked key (`set.label`); some Questions may lack one. */
  readonly answers: Readonly<Record<string, EncodedAnswer>>;
  readonly provenance: {
    readonly engine: string;
    readonly model: string;
    readonly requestId: string | null;
    readonly details: Readonly<Record<string, unknown>>;
    /** The model of each Question, when the Engine reported one per Question. */
    readonly questionModels?: Readonly<Record<string, string>>;
  };
  /** The record of the failed round that holds them, when there is one. */
  readonly record?: number | null;
}

/** The PaidAnswers of an Assessment (what AssessmentNotRecorded carries). */
export function paidAnswersOf(assessment: Assessment<any>): PaidAnswers {
  const { engine, model, requestId, details, questionModels } = assessment.provenance;
  return {
    answers: assessment.encodedAnswers(),
    provenance: { engine, model, requestId, details: { ...details }, questionModels: { ...questionModels } },
  };
}

/** Something that assesses and tells which record it wrote: the Judge, as the dispatch strategies see it. */
export interface Attempter {
  /** Assesses `judgment` as `options` say (paid answers to record instead of asking, the round's rate-limit mode). */
  attempt<J extends Judgment>(judgment: J, options?: AttemptOptions): Promise<RecordedAttempt<J>>;
}

/** How one attempt is made: what the dispatch strategies tell `judge.attempt()`. */
export interface AttemptOptions {
  /** Answers an earlier run paid for but could not record: recorded now, the Engine is not asked again. */
  readonly paid?: PaidAnswers;
  /**
   * How the round treats the connection's rate limits, handed to the Engine with the request (default LIVE_LIMITS:
   * wait for a slot up to `limiter.maxWait`). A queued assess job gives QUEUED_LIMITS: refusals go back to the queue.
   */
  readonly limits?: LimitMode;
  /** Which tier of the Judgment's escalation cascade to ask (default: the first), and the record it escalates from. */
  readonly tier?: TierChoice;
  /** The queued assess job making the attempt (absent inline). */
  readonly job?: QueuedJob;
}

/** The queued assess job an attempt is made for. */
export interface QueuedJob {
  /** Written on the attempt's records (`job_id`), so a later run of the job finds them. */
  readonly id: string;
  /**
   * The job ran before (its worker died, it was retried, or given back to the queue): the answered record an earlier
   * run wrote is announced again and returned instead of asking the Engine.
   */
  readonly rerun: boolean;
}

/** A tier of a Judgment's escalation cascade to ask (0: the first), and the record of the tier before it. */
export interface TierChoice {
  readonly index: number;
  readonly escalatedFrom: number | null;
}

/** A way of running dispatched Judgments (inline, or on BullMQ); resolves to the job id. */
export interface DispatchStrategy {
  dispatch(judgment: Judgment, options: DispatchOptions, judge: Attempter): Promise<string>;
}

/** Injection token of the dispatch strategy the module wires (inline, or queued when the queue is enabled). */
export const JUDGMENT_DISPATCH = Symbol('JUDGMENT_DISPATCH');
