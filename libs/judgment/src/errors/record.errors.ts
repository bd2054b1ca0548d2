import { JudgmentError } from './judgment.error';

/** Recording is required and the Assessment (or its Outcome) could not be written. Carries the paid Assessment. */
export class AssessmentNotRecorded extends JudgmentError {
  constructor(
    message: string,
    /** The Assessment the Engine produced (answers were paid for, so they are kept here). */
    readonly assessment: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A failed attempt could not be recorded. Only reported and logged, never thrown at the caller. */
export class UnassessedNotRecorded extends JudgmentError {
  constructor(
    message: string,
    readonly judgment: unknown,
    readonly failure: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A record cannot be rebuilt into an Assessment (Unassessed, another Judgment, changed Questions, no Subject). */
export class UnrebuildableAssessment extends JudgmentError {
  /** Record `id` of the named Judgment was deleted (pruned, say) before its Outcome could be written. */
  static recordGone(id: number, judgment: string): UnrebuildableAssessment {
    return new UnrebuildableAssessment(
      `Record #${id} of ${judgment} no longer exists (pruned or deleted before its Outcome was written).`,
    );
  }
}

/** A queued Judgment's Subject (or a record's Subject) no longer exists. */
export class SubjectNotFound extends JudgmentError {}

/** A Resolution that cannot be applied to the record (or whose reviewer cannot be recorded). */
export class InvalidResolution extends JudgmentError {}

/**
 * The reviewer cannot be recorded: neither `{ type, id }` nor a saved TypeORM entity, or a type or id the reviewer
 * columns cannot hold (over 255 characters, a NUL or an unpaired surrogate). A bad request, not a conflict.
 */
export class InvalidReviewer extends InvalidResolution {}

/** A records query was given a filter it cannot use. */
export class InvalidRecordQuery extends JudgmentError {}

/** The app's ResolutionPolicy refused the reviewer (or no policy is configured). */
export class ResolutionForbidden extends JudgmentError {}

/** A calibration run cannot proceed. */
export class InvalidCalibration extends JudgmentError {}
