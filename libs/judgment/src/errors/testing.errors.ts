import { JudgmentError } from './judgment.error';

/** The fake Judge has no script for a Judgment. */
export class UnscriptedJudgment extends JudgmentError {}

/** A fake sequence ran out of scripts. */
export class ExhaustedSequence extends JudgmentError {}

/** A script given to the fake Judge or a fake Assessment has the wrong shape. */
export class InvalidScript extends JudgmentError {}

/** A fake Judge assertion failed; its message says what was expected and what happened. Fails the Jest test. */
export class JudgmentAssertionError extends JudgmentError {}
