import { JudgmentError } from './judgment.error';

/** A CLI generator (make:judgment, make:decision) was asked to write something it cannot. */
export class GeneratorError extends JudgmentError {}
