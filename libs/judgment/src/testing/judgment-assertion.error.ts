import { JudgmentError } from '../errors/judgment.error';

/** A fake Judge assertion failed; its message says what was expected and what happened. Fails the Jest test. */
export class JudgmentAssertionError extends JudgmentError {}
