// The app the CLI suites run the `judgment` command against: SQLite (a file named by FIXTURE_DB), the Jev connection
// configured from the environment (the suites point it at the Jev simulator), one Judgment and two Decisions. The
// same app with the queue on (Redis, keys under FIXTURE_QUEUE_PREFIX) is QueuedFixtureAppModule.
import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import {
  type Assessment,
  Decision,
  Evidence,
  Judgment,
  JudgmentModule,
  Likelihood,
  Rating,
  judgmentEntities,
  judgmentOptionsFromEnv,
} from 'nestjs-judgment';
import { REDIS } from '../support/redis';

@Entity({ name: 'cli_refunds' })
export class Refund {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar' })
  item!: string;

  @Column({ type: 'float' })
  amount!: number;

  @Column({ type: 'text' })
  explanation!: string;
}

export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Judgment({ name: 'refund-abuse', decision: () => RefundDecision })
export class RefundAbuse implements Judgment {
  constructor(readonly refund: Refund) {}

  evidence() {
    return {
      order: { item: this.refund.item, amount_eur: this.refund.amount },
      request: { explanation: Evidence.untrusted(this.refund.explanation) },
    };
  }

  questions() {
    return {
      abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?'),
      credibility: Rating.of('How credible is the explanation of the refund request?', [
        'Not credible',
        'Plausible',
        'Fully credible',
      ]),
    };
  }
}

@Decision({
  outcomes: RefundOutcome,
  review: { outcomes: [RefundOutcome.Escalate], deadline: '48h', onExpiry: RefundOutcome.Reject },
  version: '1',
})
export class RefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return RefundOutcome.Reject;
    if (abusive.above(0.3)) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}

@Decision({ outcomes: RefundOutcome, name: 'strict-refund' })
export class StrictRefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    return assessment.likelihood('abusive').above(0.2) ? RefundOutcome.Reject : RefundOutcome.Approve;
  }
}

// One registration shared by both apps: @nestjs/typeorm warns when a second forRoot() takes the default name.
const database = TypeOrmModule.forRoot({
  type: 'better-sqlite3',
  database: process.env.FIXTURE_DB ?? ':memory:',
  entities: [Refund, ...judgmentEntities],
  synchronize: true,
  retryAttempts: 0,
});

@Module({
  imports: [
    database,
    JudgmentModule.forRoot(judgmentOptionsFromEnv(process.env)),
    JudgmentModule.forFeature([RefundAbuse, StrictRefundDecision]),
  ],
})
export class FixtureAppModule {}

@Module({
  imports: [
    database,
    BullModule.forRoot({ connection: REDIS, prefix: process.env.FIXTURE_QUEUE_PREFIX }),
    JudgmentModule.forRoot({ ...judgmentOptionsFromEnv(process.env), queue: { enabled: true } }),
    JudgmentModule.forFeature([RefundAbuse, StrictRefundDecision]),
  ],
})
export class QueuedFixtureAppModule {}
