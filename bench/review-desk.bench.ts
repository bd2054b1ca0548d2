// The review desk's list filters and deadline sweep at scale: 1,000,000 records, 30,000 awaiting Review (a third of
// them claimed, half of those leases expired), deadlines on every awaiting record, 200 of them due. Each query runs
// through the library's own code (RecordQueries, RecordWriter) on PostgreSQL; the p50 of the claim filters and the
// sweep is reported beside the plain awaiting-Review list (the baseline) as a ratio, with EXPLAIN ANALYZE of each.
//   node -r ./scripts/register.js bench/review-desk.bench.ts [runs]
import { performance } from 'node:perf_hooks';
import { DataSource, type Logger as TypeOrmLogger } from 'typeorm';
import { judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { resolveJudgmentOptions } from '../libs/judgment/src/judgment.options';
import { RecordWriter } from '../libs/judgment/src/persistence/record.writer';
import { RecordQueries } from '../libs/judgment/src/records/record-queries.service';
import { ReviewAccess } from '../libs/judgment/src/review/review-access';
import type { ResolutionPolicyHost } from '../libs/judgment/src/review/resolution-policy';
import { PG } from '../test/support/postgres';

const DATABASE = 'judgment_desk_bench';
const RUNS = Number(process.argv[2] ?? 200);

/** Keeps the last SQL statement TypeORM ran, so it can be EXPLAINed as the library sent it. */
class LastQuery implements TypeOrmLogger {
  sql = '';
  parameters: unknown[] = [];
  logQuery(query: string, parameters?: unknown[]) {
    this.sql = query;
    this.parameters = parameters ?? [];
  }
  logQueryError() {}
  logQuerySlow() {}
  logSchemaBuild() {}
  logMigration() {}
  log() {}
}

async function seed(): Promise<void> {
  const admin = await new DataSource({ ...PG, database: 'postgres' }).initialize();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.destroy();
  const db = await new DataSource({ ...PG, database: DATABASE, migrations: judgmentMigrations }).initialize();
  await db.runMigrations();
  const started = performance.now();
  // Every 33rd record of the first 990,000 awaits Review (30,000); every 5th of the rest went to Review and was
  // resolved. Of the awaiting: every 3rd is claimed (r0..r49), half of those leases expired; every awaiting record
  // has a deadline, 200 of them already due.
  await db.query(`
    INSERT INTO judgment_assessments (judgment, subject_type, subject_id, evidence_fingerprint, untrusted_paths,
      questions_fingerprint, answers, decision, outcome_type, outcome, review_requested_at, resolved_at, resolution,
      claim_holder_type, claim_holder_id, claim_expires_at, review_deadline_at, created_at)
    SELECT
      CASE WHEN i % 4 = 0 THEN 'ticket-routing' ELSE 'refund-abuse' END,
      'Refund', (i % 50000)::text, repeat('a', 64), '[]', repeat('b', 64), '{"abusive": 0.5}', 'RefundDecision',
      'RefundOutcome',
      CASE WHEN awaiting OR reviewed THEN 'escalate' ELSE 'approve' END,
      CASE WHEN awaiting OR reviewed THEN now() - interval '3 days' ELSE NULL END,
      CASE WHEN reviewed THEN now() - interval '1 day' ELSE NULL END,
      CASE WHEN reviewed THEN 'approve' ELSE NULL END,
      CASE WHEN claimed THEN 'staff' ELSE NULL END,
      CASE WHEN claimed THEN 'r' || (i % 50) ELSE NULL END,
      CASE WHEN claimed AND i % 2 = 0 THEN now() + interval '1 hour'
           WHEN claimed THEN now() - interval '1 hour' ELSE NULL END,
      CASE WHEN awaiting AND i <= 6600 THEN now() - interval '1 minute'
           WHEN awaiting OR reviewed THEN now() + (i % 2880) * interval '1 minute' ELSE NULL END,
      now() - (1000000 - i) * interval '1 second'
    FROM (
      SELECT i, (i % 33 = 0 AND i <= 990000) AS awaiting, (i % 33 <> 0 AND i % 5 = 0) AS reviewed,
             (i % 33 = 0 AND i <= 990000 AND i % 3 = 0) AS claimed
      FROM generate_series(1, 1000000) AS i
    ) AS rows`);
  await db.query('ANALYZE judgment_assessments');
  const [counts] = await db.query(`SELECT count(*)::int AS total,
    count(*) FILTER (WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL)::int AS awaiting,
    count(*) FILTER (WHERE review_deadline_at <= now() AND resolved_at IS NULL)::int AS due FROM judgment_assessments`);
  console.log(
    `seeded ${counts.total} records (${counts.awaiting} awaiting Review, ${counts.due} past the deadline) in ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  await db.destroy();
}

async function main(): Promise<void> {
  await seed();
  const log = new LastQuery();
  const db = await new DataSource({
    ...PG,
    database: DATABASE,
    entities: judgmentEntities,
    logging: ['query'],
    logger: log,
  }).initialize();
  const rows = new RecordWriter(resolveJudgmentOptions({}), {}, db);
  const access = new ReviewAccess(rows, { policy: null } as unknown as ResolutionPolicyHost);
  const queries = new RecordQueries(rows, access);
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['awaiting Review, first page (baseline)', () => queries.awaitingReview({ limit: 20 })],
    ['awaiting Review, page 50 (offset 980)', () => queries.awaitingReview({ limit: 20, offset: 980 })],
    ['unclaimed, first page', () => queries.awaitingReview({ unclaimed: true, limit: 20 })],
    ['unclaimed, page 50 (offset 980)', () => queries.awaitingReview({ unclaimed: true, limit: 20, offset: 980 })],
    ['claimed by me (staff #r2)', () => queries.awaitingReview({ claimedBy: { type: 'staff', id: 'r2' }, limit: 20 })],
    ['deadline sweep batch (due, 500)', () => rows.dueForExpiry(new Date(), 500)],
  ];
  const p50 = new Map<string, number>();
  for (const [name, run] of cases) {
    for (let i = 0; i < 20; i++) await run(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now();
      await run();
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    p50.set(name, times[Math.floor(times.length / 2)]);
    const p95 = times[Math.floor(times.length * 0.95)];
    const plan = (await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${log.sql}`, log.parameters)) as Array<{
      'QUERY PLAN': string;
    }>;
    console.log(`\n== ${name}`);
    console.log(`SQL: ${log.sql.replace(/\s+/g, ' ')}`);
    console.log(plan.map((line) => `  ${line['QUERY PLAN']}`).join('\n'));
    console.log(`p50 ${p50.get(name)!.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms over ${RUNS} runs`);
  }
  const baseline = p50.get(cases[0][0])!;
  console.log('\n== p50 (round trip through TypeORM, ms) and ratio to the baseline');
  for (const [name] of cases) {
    console.log(
      `  ${name.padEnd(42)} ${p50.get(name)!.toFixed(2).padStart(7)}  x${(p50.get(name)! / baseline).toFixed(2)}`,
    );
  }
  await db.destroy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
