import { JudgmentError } from './judgment.error';

/** The fake Judge has no script for a Judgment. */
export class UnscriptedJudgment extends JudgmentError {}

/** A fake sequence ran out of scripts. */
export class ExhaustedSequence extends JudgmentError {}

/** A real Engine was asked while the Judge is faked. */
export class RealEngineCallPrevented extends JudgmentError {
  constructor() {
    super('The Judge is faked, so real Engine calls are prevented: script this Judgment in the fake Judge instead.');
  }
}
