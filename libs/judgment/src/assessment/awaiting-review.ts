import type { Outcome } from '../definition/outcome';

/**
 * Why a case is in Review:
 * - `band`: the Decision's Outcome is one of its Review Outcomes (the uncertain band between automatic Outcomes);
 * - `drift`: the calibration drift guard sent an automatic Outcome to Review (`calibration.onDrift: 'review'`), because
 *   the decision ran under an identity the calibration lock does not vouch for;
 * - `collapse`: the signal-collapse guard sent an automatic Outcome to Review: the Engine's probabilities stopped
 *   carrying the signal they had when the Decision was calibrated.
 */
export type ReviewCause = 'band' | 'drift' | 'collapse';

/** The causes, in the order a record names them. */
export const REVIEW_CAUSES: readonly ReviewCause[] = ['band', 'drift', 'collapse'];

/** Why a case is in Review: the cause, and a sentence a reviewer can read. */
export interface ReviewReason {
  readonly cause: ReviewCause;
  readonly text: string;
}

/**
 * What `assessment.outcome()` and `assessment.decide()` resolve to when the case went to Review instead of being
 * decided: the Outcome the Decision gave is not to be acted on; a reviewer's Resolution settles the case. Automatic
 * Outcomes resolve as themselves, so a caller's type (`RefundOutcome`) does not accept this value until the code
 * handles it (`if (decided instanceof AwaitingReview) …`).
 */
export class AwaitingReview<O extends Outcome = Outcome> {
  constructor(
    /** The Outcome the Decision gave (a Review Outcome, or an automatic one a guard sent to Review). */
    readonly outcome: O,
    /** Why the case is in Review. */
    readonly reason: ReviewReason,
    /** The record in Review, or null when nothing was recorded (persistence off). */
    readonly recordId: number | null,
  ) {
    Object.freeze(this);
  }

  /** Whether the case is in Review because of `cause`. */
  is(cause: ReviewCause): boolean {
    return this.reason.cause === cause;
  }
}

/** What deciding resolves to: the automatic Outcome, or the case awaiting Review. */
export type Decided<O extends Outcome = Outcome> = O | AwaitingReview<O>;

/** The Outcome the Decision gave, whether it acts or awaits Review (for reports and logs, not for acting). */
export function decidedOutcome<O extends Outcome>(decided: Decided<O>): O {
  return decided instanceof AwaitingReview ? decided.outcome : decided;
}

/** Why a decided case is in Review, or null when its Outcome acts. */
export function reviewReasonOf(decided: Decided): ReviewReason | null {
  return decided instanceof AwaitingReview ? decided.reason : null;
}
