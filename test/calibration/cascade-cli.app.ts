// The app the cascade calibration suite runs `judgment eval` against (test/calibration/cascade-cli.ts is its command
// line): SQLite (a file named by CASCADE_DB), and a Judgment with a two-tier escalation cascade — a cheap tier on the
// simulator's OpenAI mode (CASCADE_CHEAP_URL), a strong tier on the Jev simulator (CASCADE_STRONG_URL) — each priced
// per request, the strong one 20 times the cheap one. CASCADE_UNPRICED=strong leaves the strong tier without a price;
// CASCADE_LOCK names the calibration lock the app runs under.
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import {
  type Assessment,
  Decision,
  Evidence,
  Judgment,
  JudgmentModule,
  type JudgmentModuleOptions,
  Likelihood,
  judgmentEntities,
} from 'nestjs-judgment';

export const CHEAP_KEY = 'sk-cascade-cheap-SECRET';
export const STRONG_KEY = 'sk-cascade-strong-SECRET';
/** Per request: the cheap tier costs 1/20 of the strong one. */
export const PRICES = { cheap: 0.0001, strong: 0.002 };

@Entity({ name: 'cascade_claims' })
export class Claim {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'text' })
  text!: string;
}

export enum ClaimOutcome {
  Pay = 'pay',
  Check = 'check',
  Refuse = 'refuse',
}

/** Refuse above `refuse`, pay at or below `pay`, a person (or the next tier) in between. */
@Decision({ outcomes: ClaimOutcome, review: [ClaimOutcome.Check], name: 'claim-decision', version: '1' })
export class ClaimDecision implements Decision<ClaimTriage, ClaimOutcome> {
  readonly thresholds = { refuse: 0.65, pay: 0.35 };

  decide(assessment: Assessment<ClaimTriage>): ClaimOutcome {
    const fraud = assessment.likelihood('fraud');
    if (fraud.above(this.thresholds.refuse)) return ClaimOutcome.Refuse;
    if (fraud.above(this.thresholds.pay)) return ClaimOutcome.Check;
    return ClaimOutcome.Pay;
  }
}

@Judgment({
  name: 'claim-triage',
  decision: ClaimDecision,
  cascade: [
    { connection: 'cheap', thresholds: { refuse: 0.85, pay: 0.15 } },
    { connection: 'strong', thresholds: { refuse: 0.6, pay: 0.4 } },
  ],
})
export class ClaimTriage implements Judgment {
  constructor(readonly claim: Claim) {}

  evidence() {
    return { claim: Evidence.untrusted(this.claim.text) };
  }

  questions() {
    return { fraud: Likelihood.that('Is this insurance claim fraudulent?') };
  }
}

export function cascadeOptions(env: NodeJS.ProcessEnv): JudgmentModuleOptions {
  const unpriced = (env.CASCADE_UNPRICED ?? '').split(',');
  const price = (tier: 'cheap' | 'strong') => (unpriced.includes(tier) ? {} : { price: { perRequest: PRICES[tier] } });
  return {
    engine: 'strong',
    engines: {
      cheap: {
        driver: 'openai',
        url: env.CASCADE_CHEAP_URL,
        key: CHEAP_KEY,
        model: 'sim-4o-2026-09-17',
        timeout: 5,
        retries: 0,
        ...price('cheap'),
      },
      strong: {
        driver: 'jev',
        url: env.CASCADE_STRONG_URL,
        key: STRONG_KEY,
        // The alias: a provider moving it to a new release is the drift the guard must catch, tier by tier.
        model: 'jev-latest',
        timeout: 5,
        retries: 0,
        ...price('strong'),
      },
    },
    ...(env.CASCADE_LOCK ? { calibration: { lock: env.CASCADE_LOCK } } : {}),
  };
}

/** The records' database: SQLite, a file named by `database` (in memory by default). */
export function cascadeDatabase(database = ':memory:') {
  return TypeOrmModule.forRoot({
    type: 'better-sqlite3',
    database,
    entities: [Claim, ...judgmentEntities],
    synchronize: true,
    retryAttempts: 0,
  });
}

/** The one registration of the default data source (a second forRoot() of the same name only warns and overrides). */
export const CASCADE_DATABASE = cascadeDatabase(process.env.CASCADE_DB);

@Module({
  imports: [
    CASCADE_DATABASE,
    JudgmentModule.forRoot(cascadeOptions(process.env)),
    JudgmentModule.forFeature([ClaimTriage]),
  ],
})
export class CascadeAppModule {}
