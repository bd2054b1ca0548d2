// The cascade Judgment of the queue suites (test/queue/cascade*.e2e-spec.ts and their worker process): a cheap tier
// that acts only when very sure, then a strong tier.
import { type Assessment, Decision, Evidence, Judgment, type JudgmentModuleOptions, Likelihood } from 'nestjs-judgment';
import { API_KEY, MODEL } from './queue.fixtures';

export enum ClaimOutcome {
  Pay = 'pay',
  Check = 'check',
  Refuse = 'refuse',
}

@Decision({ outcomes: ClaimOutcome, review: [ClaimOutcome.Check], name: 'queued-claim-decision', version: '1' })
export class ClaimDecision implements Decision<QueuedClaim, ClaimOutcome> {
  readonly thresholds = { refuse: 0.65, pay: 0.35 };
  decide(assessment: Assessment<QueuedClaim>): ClaimOutcome {
    const fraud = assessment.likelihood('fraud');
    if (fraud.above(this.thresholds.refuse)) return ClaimOutcome.Refuse;
    if (fraud.above(this.thresholds.pay)) return ClaimOutcome.Check;
    return ClaimOutcome.Pay;
  }
}

@Judgment({
  name: 'queued-claim',
  decision: ClaimDecision,
  cascade: [
    { connection: 'cheap', thresholds: { refuse: 0.9, pay: 0.1 } },
    { connection: 'strong', thresholds: { refuse: 0.6, pay: 0.4 } },
  ],
})
export class QueuedClaim implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { claim: Evidence.untrusted(this.text) };
  }
  questions() {
    return { fraud: Likelihood.that('Is this insurance claim fraudulent?') };
  }
}

/** The two connections of the cascade, each its own simulator. */
export function cascadeEngines(cheapUrl: string, strongUrl: string): JudgmentModuleOptions {
  return {
    engine: 'cheap',
    engines: {
      cheap: { driver: 'jev', key: API_KEY, url: cheapUrl, model: MODEL, retries: 0 },
      strong: { driver: 'jev', key: API_KEY, url: strongUrl, model: MODEL, retries: 0 },
    },
  };
}
