import { JudgmentError } from './judgment.error';

/** A Question was declared with text, labels or levels the package cannot ask. */
export class InvalidQuestion extends JudgmentError {}

/** The Evidence holds a value that cannot be sent to an Engine (cycle, BigInt, function, symbol, lone surrogate...). */
export class InvalidEvidence extends JudgmentError {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`The Evidence at "${path || '(root)'}" ${problem}`);
  }
}

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
