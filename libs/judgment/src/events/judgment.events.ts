import type { Assessment } from '../assessment/assessment';
import type { Decision } from '../decision/decision.decorator';
import type { Judgment } from '../definition/judgment.decorator';
import type { Outcome } from '../definition/outcome';
import type { EngineFailed } from '../errors';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { Reviewer } from '../persistence/reviewer';

/** An Engine answered (or the cache did) and the Assessment was recorded when persistence is on. */
export class AssessmentCompleted<J extends Judgment = Judgment> {
  static readonly NAME = 'judgment.assessment.completed';
  constructor(
    readonly judgment: J,
    readonly assessment: Assessment<J>,
    readonly record: AssessmentRecord | null,
  ) {}
}

/** An attempt failed; it was recorded (best-effort) as Unassessed. */
export class AssessmentFailed<J extends Judgment = Judgment> {
  static readonly NAME = 'judgment.assessment.failed';
  constructor(
    readonly judgment: J,
    readonly error: EngineFailed,
    readonly record: AssessmentRecord | null,
  ) {}
}

/**
 * A Decision was applied to a recorded (or Judge-produced) Assessment. Fires for every such decision, also when the
 * record is already in Review and keeps the Outcome that sent it there: check `record.isAwaitingReview()`.
 */
export class AssessmentDecided<J extends Judgment = Judgment, O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.assessment.decided';
  constructor(
    readonly judgment: J,
    readonly assessment: Assessment<J>,
    readonly decision: Decision<J, O>,
    readonly outcome: O,
    readonly record: AssessmentRecord | null,
  ) {}
}

/** An Outcome that needs a person put the record in Review (once per record). */
export class ReviewRequested<J extends Judgment = Judgment, O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.review.requested';
  constructor(
    readonly judgment: J,
    readonly assessment: Assessment<J>,
    readonly outcome: O,
    readonly record: AssessmentRecord | null,
    readonly requestedAt: Date,
  ) {}
}

/** A reviewer resolved a record in Review. The record keeps both the automatic Outcome and the Resolution. */
export class ReviewResolved<O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.review.resolved';
  constructor(
    readonly record: AssessmentRecord,
    /** The automatic Outcome that sent the record to Review. */
    readonly outcome: O,
    readonly resolution: O,
    readonly reviewer: Reviewer,
  ) {}
}

/** A reviewer took the claim on a record in Review (not fired when the holder renews the lease). */
export class ReviewClaimed {
  static readonly NAME = 'judgment.review.claimed';
  constructor(
    readonly record: AssessmentRecord,
    readonly reviewer: Reviewer,
    /** When the lease ends unless renewed. */
    readonly expiresAt: Date,
  ) {}
}

/** The holder released its claim on a record in Review; anyone may claim it now. */
export class ReviewReleased {
  static readonly NAME = 'judgment.review.released';
  constructor(
    readonly record: AssessmentRecord,
    readonly reviewer: Reviewer,
  ) {}
}

/**
 * Nobody resolved a record before its Decision's review deadline: the system resolved it with the Decision's
 * `onExpiry` Outcome (resolver `system` #`deadline`). ReviewResolved follows, with the system as the reviewer.
 */
export class ReviewExpired<O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.review.expired';
  readonly reason = 'deadline' as const;
  constructor(
    readonly record: AssessmentRecord,
    /** The automatic Outcome that sent the record to Review. */
    readonly outcome: O,
    /** The Decision's `onExpiry` Outcome the record was resolved with. */
    readonly resolution: O,
    readonly deadlineAt: Date,
  ) {}
}

export type JudgmentEvent =
  | AssessmentCompleted
  | AssessmentFailed
  | AssessmentDecided
  | ReviewRequested
  | ReviewResolved
  | ReviewClaimed
  | ReviewReleased
  | ReviewExpired;
