import type { ReviewCause, ReviewReason } from '../assessment/awaiting-review';
import type { Outcome } from '../definition/outcome';
import type { DecisionMetadata } from './decision.decorator';

/**
 * What a guard found about one decision: the drift guard (an identity the calibration lock does not vouch for), the
 * signal-collapse guard. `sendsToReview` is the guard's policy: 'review' sends an automatic Outcome to Review, 'warn'
 * only reports.
 */
export interface GuardFinding {
  readonly cause: Exclude<ReviewCause, 'band'>;
  readonly text: string;
  readonly sendsToReview: boolean;
}

/** Everything the plan of one decision is computed from: values only, no services. */
export interface DecisionPlanInput {
  /** The Outcome the Decision returned. */
  readonly outcome: Outcome;
  readonly decision: Pick<DecisionMetadata, 'name' | 'review'>;
  /** The rule that fired, in words (the decision trace's `rule.text`). */
  readonly rule: string;
  /** What the guards found, in the order they were asked. */
  readonly findings: readonly GuardFinding[];
  /** The Review the case is already in (its record went to Review before, or this Assessment did), else null. */
  readonly inReview: ReviewReason | null;
  /**
   * Whether an automatic Outcome that acts may be sampled for an audit, with its Decision's audit rate and one draw
   * from a uniform source in [0, 1); null when no audit can be requested (nothing recorded, or one already was).
   */
  readonly audit: { readonly rate: number; readonly draw: number } | null;
  /**
   * The next tier of the Judgment's escalation cascade, when this decision is the cascade's and a tier follows; null
   * otherwise (no cascade, the last tier, another Decision).
   */
  readonly escalation?: { readonly tier: number; readonly connection: string } | null;
}

/**
 * What must happen after a decision:
 * - `act`: the Outcome is automatic and stands (its Actions run); `audit` says whether it is also sent to a reviewer
 *   as an audit;
 * - `review`: the case awaits a person; `enters` is false when it was in Review already (nothing new is written or
 *   announced, the first reason stands);
 * - `escalate`: the Outcome is in the Review band and the cascade has a next tier: that tier is asked instead.
 */
export type DecisionPlan =
  | { readonly route: 'act'; readonly audit: boolean }
  | { readonly route: 'escalate'; readonly tier: number; readonly connection: string; readonly text: string }
  | { readonly route: 'review'; readonly reason: ReviewReason; readonly enters: boolean };

/**
 * The routing policy of a decision, as a pure function: a case already in Review stays there with its first reason;
 * a Review Outcome escalates to the next tier of a cascade when there is one, else goes to Review (`band`); an automatic Outcome goes to Review when a guard's finding says so (the
 * first such finding names the cause), else it acts, sampled for an audit at the Decision's rate.
 */
export function planDecision(input: DecisionPlanInput): DecisionPlan {
  if (input.inReview) return { route: 'review', reason: input.inReview, enters: false };
  if (input.decision.review.has(input.outcome)) {
    if (input.escalation) {
      const { tier, connection } = input.escalation;
      const text =
        `${input.decision.name} decided ${JSON.stringify(input.outcome)}, one of its Review Outcomes, by the rule: ` +
        `${input.rule}; asked of tier ${tier} ("${connection}") instead.`;
      return { route: 'escalate', tier, connection, text };
    }
    return { route: 'review', reason: bandReason(input.decision.name, input.outcome, input.rule), enters: true };
  }
  const guard = input.findings.find((finding) => finding.sendsToReview);
  if (guard) return { route: 'review', reason: { cause: guard.cause, text: guard.text }, enters: true };
  const audit = input.audit !== null && input.audit.rate > 0 && input.audit.draw < input.audit.rate;
  return { route: 'act', audit };
}

function bandReason(decision: string, outcome: Outcome, rule: string): ReviewReason {
  return {
    cause: 'band',
    text: `${decision} decided ${JSON.stringify(outcome)}, one of its Review Outcomes, by the rule: ${rule}.`,
  };
}
