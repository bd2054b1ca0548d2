// Pruning a month of records: the DELETE of an unpartitioned judgment_assessments (what prune() did) beside the
// detach-and-drop of that month's partition (judgmentMigrations.partitioned), on two databases filled alike in one run.
// Each database gets `months` months of `perMonth` records (the fill of bench/review-list.bench.ts, spread evenly over
// each month; every index the migrations create). The partitioned one is upgraded from the filled plain table by the
// migration itself (its time is printed). Then each round moves the clock one month on (retention 365 days) and
// prunes the oldest month on both, alternating which goes first; prints each round, the medians, the ratio and the
// load (`uptime`) before and after.
//   node -r ./scripts/register.js bench/prune-partition.bench.ts [perMonth=50000] [months=4]
import { execSync } from 'node:child_process';
import { judgmentMigrations } from 'nestjs-judgment';
import { DataSource } from 'typeorm';
import { RecordRetention } from '../libs/judgment/src/records/record-retention.service';
import { monthStart } from '../libs/judgment/src/persistence/record-partitions';
import { type BenchApp, PG, median, recreateDatabase, startRecordsApp } from './support/bench';

const PER_MONTH = Number(process.argv[2] ?? 50_000);
const MONTHS = Number(process.argv[3] ?? 4);
const DAY_MS = 86_400_000;
const RETENTION_DAYS = 365; // the default of persistence.retentionDays
/**
 * The first month of records: far enough back that every round's clock (a year after a month of records) is no later
 * than today, so the partitions ahead of it exist already, as in steady state with a monthly `judgment prune`.
 */
const BASE = monthStart(new Date(), -(MONTHS + 12));

async function prepare(database: string, partitioned: boolean): Promise<number> {
  await recreateDatabase(database);
  const db = await new DataSource({
    ...PG,
    database,
    migrations: [...judgmentMigrations, ...judgmentMigrations.partitioned],
  }).initialize();
  try {
    await db.runMigrations({ transaction: 'each' });
    await db.undoLastMigration({ transaction: 'each' }); // the plain table, as every app has it before the upgrade
    for (let month = 0; month < MONTHS; month++) await fill(db, monthStart(BASE, month), monthStart(BASE, month + 1));
    await db.query('VACUUM ANALYZE judgment_assessments');
    if (!partitioned) return 0;
    const started = performance.now();
    await db.runMigrations({ transaction: 'each' });
    return performance.now() - started;
  } finally {
    await db.destroy();
  }
}

async function fill(db: DataSource, from: Date, to: Date): Promise<void> {
  await db.query(
    `INSERT INTO judgment_assessments (judgment, subject_type, subject_id, evidence, evidence_fingerprint,
       untrusted_paths, questions_fingerprint, answers, engine, model, request_id, provenance_details, failure_type,
       decision, outcome_type, outcome, review_requested_at, created_at)
     SELECT 'refund-abuse', 'Customer', n::text, json_build_object('note', 'Refund me ' || n),
       md5(n::text) || md5(n::text), '["note"]', md5('q') || md5('q'),
       CASE WHEN n % 100 = 0 THEN NULL ELSE '{"abusive":0.5}'::json END, 'jev', 'jev-1.13.0', 'req-' || n,
       '{"usage":{"input_tokens":40}}', CASE WHEN n % 100 = 0 THEN 'EngineFailed' END,
       'refund-decision', 'RefundOutcome', CASE WHEN n % 3 = 0 THEN 'escalate' ELSE 'approve' END,
       CASE WHEN n % 30 = 0 THEN $1::timestamptz END,
       $1::timestamptz + ($2::timestamptz - $1::timestamptz) * (n::float8 / ($3::int + 1))
     FROM generate_series(1, $3::int) AS n`,
    [from.toISOString(), to.toISOString(), PER_MONTH],
  );
}

function uptime(): string {
  return execSync('uptime').toString().trim();
}

async function main() {
  console.log(`before: ${uptime()}`);
  const plainDb = 'judgment_bench_prune_delete';
  const partitionedDb = 'judgment_bench_prune_partition';
  const built = performance.now();
  await prepare(plainDb, false);
  const upgradeMs = await prepare(partitionedDb, true);
  console.log(
    `built 2 × ${MONTHS} months × ${PER_MONTH} records in ${Math.round(performance.now() - built)} ms; ` +
      `the partition migration upgraded ${MONTHS * PER_MONTH} records in ${Math.round(upgradeMs)} ms`,
  );
  const apps: Record<'delete' | 'partition', BenchApp> = {
    delete: await startRecordsApp(plainDb),
    partition: await startRecordsApp(partitionedDb),
  };
  const times: Record<'delete' | 'partition', number[]> = { delete: [], partition: [] };
  try {
    for (let round = 0; round < MONTHS - 1; round++) {
      // Retention 365 days as of a year after the start of month round + 1: exactly month `round` is older.
      const now = new Date(monthStart(BASE, round + 1).getTime() + RETENTION_DAYS * DAY_MS);
      const order: ('delete' | 'partition')[] = round % 2 === 0 ? ['delete', 'partition'] : ['partition', 'delete'];
      const line: string[] = [];
      for (const path of order) {
        const retention = apps[path].get(RecordRetention);
        const started = performance.now();
        const result = await retention.pruneRecords(now);
        const ms = performance.now() - started;
        times[path].push(ms);
        line.push(
          `${path}: ${ms.toFixed(1)} ms (${result.dropped} dropped with ${result.partitions.join(', ') || 'no partition'}, ` +
            `${result.deleted} deleted)`,
        );
      }
      console.log(`round ${round + 1}, month ${monthStart(BASE, round).toISOString().slice(0, 7)}: ${line.join('; ')}`);
    }
  } finally {
    await apps.delete.close();
    await apps.partition.close();
  }
  const deleteMs = median(times.delete);
  const partitionMs = median(times.partition);
  console.log(
    `median prune of a month of ${PER_MONTH} records: DELETE ${deleteMs.toFixed(1)} ms, partition drop ` +
      `${partitionMs.toFixed(1)} ms, ratio DELETE / drop ${(deleteMs / partitionMs).toFixed(1)}×`,
  );
  console.log(`after: ${uptime()}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
