import { JudgmentError } from './judgment.error';

/** A Judgment cannot be queued: it is not registered, or one of its properties cannot travel in a job payload. */
export class UnqueueableJudgment extends JudgmentError {}
