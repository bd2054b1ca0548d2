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
export class UnrebuildableAssessment extends JudgmentError {}

/** A queued Judgment's Subject (or a record's Subject) no longer exists. */
export class SubjectNotFound extends JudgmentError {}

/** A Resolution that cannot be applied to the record (or whose reviewer cannot be recorded). */
export class InvalidResolution extends JudgmentError {}

/** A records query was given a filter it cannot use. */
export class InvalidRecordQuery extends JudgmentError {}

/** The app's ResolutionPolicy refused the reviewer (or no policy is configured). */
export class ResolutionForbidden extends JudgmentError {}

/** A calibration run cannot proceed. */
export class InvalidCalibration extends JudgmentError {}
