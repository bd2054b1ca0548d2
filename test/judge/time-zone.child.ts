// Run by persistence-time-zones.e2e-spec.ts in a child process, so TZ (the app's time zone) is set before Node starts:
// `TZ=Asia/Tokyo node -r ./scripts/register.js test/judge/time-zone.child.ts <database>`. The database session runs
// in UTC. Prints one JSON line: the record's times as the app reads them, and what prune() deleted.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AssessmentRecords, Judge, JudgmentModule, judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { NoteCheck } from '../support/note-check';
import { PG } from '../support/postgres';

async function main(database: string): Promise<void> {
  @Module({
    imports: [
      TypeOrmModule.forRoot({
        ...PG,
        database,
        entities: judgmentEntities,
        migrations: judgmentMigrations,
        migrationsRun: true,
        // The database session's time zone, whatever the server's default.
        extra: { options: '-c TimeZone=UTC' },
      }),
      EventEmitterModule.forRoot(),
      JudgmentModule.forRoot({
        engine: 'mock',
        engines: { mock: { driver: 'mock' } },
        log: false,
        // 6 hours: less than the 9 hours between Tokyo and UTC.
        persistence: { retentionDays: 0.25 },
      }),
      JudgmentModule.forFeature([NoteCheck]),
    ],
  })
  class AppModule {}

  const app = await NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false });
  try {
    const assessment = await app.get(Judge).assess(new NoteCheck('You again?'));
    await assessment.outcome();
    const records = app.get(AssessmentRecords);
    const [record] = await records.awaitingReview({ judgment: 'note-check' });
    const pruned = await records.prune();
    const kept = (await records.find(record.id)) !== null;
    process.stdout.write(
      `${JSON.stringify({
        offsetMinutes: new Date().getTimezoneOffset(),
        now: new Date().toISOString(),
        createdAt: record.createdAt.toISOString(),
        reviewRequestedAt: record.reviewRequestedAt?.toISOString() ?? null,
        pruned,
        kept,
      })}\n`,
    );
  } finally {
    await app.close();
  }
}

main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
