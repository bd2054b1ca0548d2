import { JudgmentError } from './judgment.error';

/**
 * A calibration lock file that cannot be used: not valid JSON, not a nestjs-judgment lock, a field of the wrong
 * shape, or an entry naming a Judgment the app does not register. `file` is the path, `field` the JSON path (or null).
 */
export class InvalidCalibrationLock extends JudgmentError {
  constructor(
    readonly file: string,
    readonly field: string | null,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`The calibration lock ${file}${field ? ` (field ${field})` : ''} ${problem}`, options);
  }
}

/** A threshold suggestion asked with a target, a confidence or a grid it cannot work with. */
export class InvalidSuggestion extends JudgmentError {}

/** An audit plan asked with a target, a confidence, a horizon or counts it cannot work with. */
export class InvalidAuditPlan extends JudgmentError {}
