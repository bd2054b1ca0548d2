import {
  type Assessment,
  Decision,
  Evidence,
  Judgment,
  type JudgmentModuleOptions,
  Likelihood,
  judgmentOptionsFromEnv,
} from 'nestjs-judgment';

export enum ClaimOutcome {
  Pay = 'pay',
  Check = 'check',
  Refuse = 'refuse',
}

@Decision({ outcomes: ClaimOutcome, review: [ClaimOutcome.Check], version: '1' })
export class ClaimDecision implements Decision<ClaimCheck, ClaimOutcome> {
  readonly thresholds = { refuse: 0.65, pay: 0.35 };

  decide(assessment: Assessment<ClaimCheck>): ClaimOutcome {
    const fraud = assessment.likelihood('fraud');
    if (fraud.above(this.thresholds.refuse)) return ClaimOutcome.Refuse;
    if (fraud.above(this.thresholds.pay)) return ClaimOutcome.Check; // the Review band
    return ClaimOutcome.Pay;
  }
}

@Judgment({
  name: 'claim-check',
  decision: ClaimDecision,
  cascade: [
    { connection: 'small', thresholds: { refuse: 0.9, pay: 0.1 } }, // acts only when it is very sure
    { connection: 'jev' }, // the Decision's own thresholds; what it leaves in the band goes to Review
  ],
})
export class ClaimCheck implements Judgment {
  constructor(readonly claim: string) {}

  evidence() {
    return { claim: Evidence.untrusted(this.claim) };
  }

  questions() {
    return { fraud: Likelihood.that('Is this insurance claim an attempt at fraud?') };
  }
}

/** The environment's Jev connection, and a small OpenAI-compatible model asked first. */
export function cascadeOptions(env: NodeJS.ProcessEnv): JudgmentModuleOptions {
  const options = judgmentOptionsFromEnv(env);
  return {
    ...options,
    engines: {
      ...options.engines,
      small: { driver: 'openai', key: env.OPENAI_API_KEY, url: env.OPENAI_BASE_URL, model: 'gpt-4o-mini-2024-07-18' },
    },
  };
}
