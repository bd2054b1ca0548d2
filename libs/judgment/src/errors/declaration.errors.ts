import { JudgmentError } from './judgment.error';

/** A Question was declared with text, labels or levels the package cannot ask. */
export class InvalidQuestion extends JudgmentError {}

/** The Evidence holds a value that cannot be sent to an Engine (cycle, BigInt, function, symbol, lone surrogate...). */
export class InvalidEvidence extends JudgmentError {
  /** `path` is the dotted path of the value, '' for the whole Evidence, null when the path is not known. */
  constructor(
    readonly path: string | null,
    problem: string,
  ) {
    super(path === null ? `The Evidence ${problem}` : `The Evidence at "${path || '(root)'}" ${problem}`);
  }
}

/** A class used as a Judgment is not one, or its @Judgment() options cannot be used. */
export class InvalidJudgment extends JudgmentError {}

/** Two registered Judgments (or Decisions) share one name. */
export class DuplicateJudgmentName extends JudgmentError {}

/** A Decision is not usable: no decide() method, not decorated, or it returned something that is not an Outcome. */
export class InvalidDecision extends JudgmentError {}

/** outcome() was called on an Assessment whose Judgment names no default Decision. */
export class NoDefaultDecision extends JudgmentError {
  constructor(judgment: string) {
    super(
      `${judgment} names no default Decision; pass a Decision to decide() instead, or set @Judgment({ decision }).`,
    );
  }
}

/** A Decision returned two different Outcomes for the same fake Assessment. */
export class ImpureDecision extends JudgmentError {
  constructor(decision: string, first: unknown, second: unknown) {
    super(
      `${decision} returned ${JSON.stringify(first)} and then ${JSON.stringify(second)} for the same Assessment. ` +
        'A Decision may read only its Assessment and Judgment: no clock, no randomness, no I/O, no state of its own.',
    );
  }
}

/** No registered Judgment carries the name looked up (by a queued job, a record or the CLI). */
export class UnknownJudgmentName extends JudgmentError {}

/** No registered Decision carries the name looked up (a record's Decision, or one named to the CLI). */
export class UnknownDecision extends JudgmentError {}
