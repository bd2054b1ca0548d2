// The two-Question claim both drift suites decide: \`fraud\` and \`urgent\`, which the openai driver asks in two
// requests, so a deployment moving between models mid-round answers them as different models.
import { type Assessment, Decision, Evidence, Judgment, Likelihood } from 'nestjs-judgment';

/** The \`urgent\` Question's text (a proxy recognises its request by it). */
export const URGENT = 'Does the claimant need help today?';

export enum ClaimOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Decision({ name: 'two-part-decision', outcomes: ClaimOutcome, review: [ClaimOutcome.Escalate], version: '1' })
export class TwoPartDecision implements Decision<TwoPartClaim, ClaimOutcome> {
  readonly thresholds = { reject: 0.7, escalate: 0.3 };

  decide(assessment: Assessment<TwoPartClaim>): ClaimOutcome {
    const fraud = assessment.likelihood('fraud');
    if (fraud.above(this.thresholds.reject)) return ClaimOutcome.Reject;
    if (fraud.above(this.thresholds.escalate) || assessment.likelihood('urgent').above(0.9)) {
      return ClaimOutcome.Escalate;
    }
    return ClaimOutcome.Approve;
  }
}

@Judgment({ name: 'two-part-claim', decision: () => TwoPartDecision })
export class TwoPartClaim implements Judgment {
  constructor(readonly text: string) {}

  evidence() {
    return { claim: Evidence.untrusted(this.text) };
  }

  questions() {
    return {
      fraud: Likelihood.that('Is this insurance claim fraudulent?'),
      urgent: Likelihood.that(URGENT),
    };
  }
}
