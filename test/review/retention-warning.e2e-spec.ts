// A retention shorter than a Review deadline (issue 34, bad input): `prune()` could delete a record still waiting in
// Review before its deadline resolves it, so startup warns, naming the Decision, both durations and the fix; the app
// still starts. On an in-memory SQLite database with the package's migrations and the mock Engine.
import type { LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  type Assessment,
  Decision,
  Evidence,
  Judgment,
  JudgmentModule,
  Likelihood,
  judgmentEntities,
  judgmentMigrations,
} from 'nestjs-judgment';

enum Outcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Decision({
  name: 'retention-refund-decision',
  outcomes: Outcome,
  review: { outcomes: [Outcome.Escalate], deadline: '48h', onExpiry: Outcome.Reject },
})
class DeadlineDecision implements Decision<DeadlineCheck, Outcome> {
  decide(assessment: Assessment<DeadlineCheck>): Outcome {
    return assessment.likelihood('abusive').above(0.5) ? Outcome.Escalate : Outcome.Approve;
  }
}

@Judgment({ name: 'retention-refund', decision: () => DeadlineDecision })
class DeadlineCheck implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { request: Evidence.untrusted(this.text) };
  }
  questions() {
    return { abusive: Likelihood.that('The refund request is an attempt to abuse the refund policy.') };
  }
}

/** Keeps what the app warns (a logger other than ConsoleLogger gets `{ message, ...context }`). */
class Warnings implements LoggerService {
  readonly lines: string[] = [];
  log() {}
  error() {}
  warn(message: unknown) {
    this.lines.push(typeof message === 'string' ? message : JSON.stringify(message));
  }
}

async function startWith(retentionDays: number | null): Promise<string[]> {
  const warnings = new Warnings();
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: judgmentEntities,
        migrations: judgmentMigrations,
        migrationsRun: true,
      }),
      JudgmentModule.forRoot({
        engine: 'mock',
        engines: { mock: { driver: 'mock', model: 'mock-1.0.0' } },
        persistence: { retentionDays },
        log: false,
      }),
      JudgmentModule.forFeature([DeadlineCheck]),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: warnings });
  await app.init();
  await app.close();
  return warnings.lines.filter((line) => line.includes('Retention shorter than a review deadline'));
}

it('warns at startup when persistence.retentionDays is shorter than a review deadline, naming both and the fix', async () => {
  const [warning, ...more] = await startWith(1);
  expect(more).toHaveLength(0);
  expect(warning).toContain('retention-refund-decision');
  expect(warning).toContain('persistence.retentionDays (1 days) is shorter than the review deadline');
  expect(warning).toContain('48h');
  expect(warning).toContain('Raise persistence.retentionDays above the longest review deadline');
});

it('says nothing when the records outlast every deadline, or are kept for ever', async () => {
  expect(await startWith(2)).toEqual([]);
  expect(await startWith(null)).toEqual([]);
});
