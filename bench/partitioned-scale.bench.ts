// The Review list and retention at scale on a partitioned record table (issue 34, point 5): the same N records in two
// databases, one with the plain judgment_assessments (judgmentMigrations), one range-partitioned by month
// (judgmentMigrations plus judgmentMigrations.partitioned), filled alike with generate_series: created_at spread evenly
// over 12 months (12 monthly partitions hold them; the partitions of the months after them up to two months ahead of
// today exist and are empty), 1 in 40 records (2.5 %) awaiting Review across all 12 months with a deadline, a cause
// (1 in 10 `drift`) and a decision margin (0 to 0.3, 1 in 20 none), a third of those claimed (by staff #me or others),
// 1 in 5 of the rest reviewed and resolved; four Judgments.
// Then, through AssessmentRecords.awaitingReview, interleaved on both databases: page 1 and deep pages by the `after`
// cursor (page 51 and page 501 where the filter has that many records) of each filter and sort, p50/p99 each and the
// ratio partitioned / plain. Last, `prune` (RecordRetention.pruneRecords, retention 365 days) of the oldest month on
// both, then of the next month, alternating which goes first: the partition drop beside the DELETE it replaces.
// Prints the load average (`uptime`) before and after.
//   node -r ./scripts/register.js bench/partitioned-scale.bench.ts [records=10000000] [runs=50]
import { execSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { AssessmentRecords, type ReviewListFilter, judgmentMigrations } from 'nestjs-judgment';
import { DataSource } from 'typeorm';
import { createMonthPartition, monthStart } from '../libs/judgment/src/persistence/record-partitions';
import { RecordRetention } from '../libs/judgment/src/records/record-retention.service';
import { type BenchApp, PG, median, percentile, recreateDatabase, startRecordsApp } from './support/bench';

const RECORDS = Number(process.argv[2] ?? 10_000_000);
const RUNS = Number(process.argv[3] ?? 50);
const MONTHS = 12;
const PAGE = 20;
/** Page 51 and page 501 begin after the 1,000th and the 10,000th record. */
const DEPTHS = [50 * PAGE, 500 * PAGE];
const CHUNK = 1_000_000;
const TARGET_MS = 5;
const DAY_MS = 86_400_000;
const RETENTION_DAYS = 365; // the default of persistence.retentionDays
const ME = { type: 'staff', id: 'me' };
const OTHER = { type: 'staff', id: 'r7' };
/**
 * The first month of records: 13 months back, so the 12 months end before this one and each prune's clock (a year
 * after the month it prunes ends) is no later than next month, whose partitions exist already.
 */
const BASE = monthStart(new Date(), -(MONTHS + 1));
const END = monthStart(BASE, MONTHS);
/** One instant for "now" in both fills, so both databases hold the same rows. */
const NOW = new Date();

type Path = 'partitioned' | 'plain';
const PATHS: Path[] = ['partitioned', 'plain'];
const DATABASES: Record<Path, string> = {
  partitioned: 'judgment_bench_scale_partitioned',
  plain: 'judgment_bench_scale_plain',
};

function uptime(): string {
  return execSync('uptime').toString().trim();
}

async function prepare(path: Path): Promise<void> {
  await recreateDatabase(DATABASES[path]);
  const migrations =
    path === 'partitioned' ? [...judgmentMigrations, ...judgmentMigrations.partitioned] : judgmentMigrations;
  const db = await new DataSource({ ...PG, database: DATABASES[path], migrations }).initialize();
  try {
    await db.runMigrations({ transaction: 'each' });
    if (path === 'partitioned') {
      // The migration on an empty table creates this month and two ahead; the 12 months before, and the month
      // between, are created here as `judgment prune` would have created them ahead in their time.
      for (let month = BASE; month < monthStart(NOW); month = monthStart(month, 1)) {
        await createMonthPartition(db, month);
      }
    }
    const started = performance.now();
    for (let from = 1; from <= RECORDS; from += CHUNK) await fill(db, from, Math.min(RECORDS, from + CHUNK - 1));
    await db.query('VACUUM ANALYZE judgment_assessments');
    console.log(`${path}: ${RECORDS} records seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await db.destroy();
  }
}

/**
 * Records from..to of N: record i awaits Review when i % 40 = 0; every 5th of the others went to Review and was
 * resolved. Of the awaiting, every 3rd is claimed (claim c): by staff #me when c % 4 = 0, else by r0..r49 (odd c
 * expired). By blocks of 40 records (so the awaiting ones share it), a quarter of the records are of `ticket-routing`,
 * one in twenty of `chargeback`, one in ten of `bulk-triage`, the rest of `refund-abuse`.
 */
async function fill(db: DataSource, from: number, to: number): Promise<void> {
  await db.query(
    `INSERT INTO judgment_assessments (judgment, subject_type, subject_id, evidence_fingerprint, untrusted_paths,
       questions_fingerprint, answers, decision, outcome_type, outcome, review_requested_at, resolved_at, resolution,
       resolver_type, resolver_id, claim_holder_type, claim_holder_id, claim_expires_at, review_deadline_at,
       created_at, review_cause, decision_margin)
     SELECT
       CASE WHEN (i / 40) % 20 < 5 THEN 'ticket-routing' WHEN (i / 40) % 20 = 5 THEN 'chargeback'
            WHEN (i / 40) % 20 IN (6, 7) THEN 'bulk-triage' ELSE 'refund-abuse' END,
       'Refund', (i % 50000)::text, repeat('a', 64), '[]', repeat('b', 64), '{"abusive": 0.5}', 'RefundDecision',
       'RefundOutcome',
       CASE WHEN awaiting OR reviewed THEN 'escalate' ELSE 'approve' END,
       CASE WHEN awaiting OR reviewed THEN created END,
       CASE WHEN reviewed THEN created + interval '1 day' END,
       CASE WHEN reviewed THEN 'approve' END,
       CASE WHEN reviewed THEN 'staff' END,
       CASE WHEN reviewed THEN 'r' || (i % 50) END,
       CASE WHEN c > 0 THEN 'staff' END,
       CASE WHEN c > 0 AND c % 4 = 0 THEN 'me' WHEN c > 0 THEN 'r' || (c % 50) END,
       CASE WHEN c > 0 AND (c % 24 = 0 OR (c % 4 <> 0 AND c % 2 = 1)) THEN $4::timestamptz - interval '1 hour'
            WHEN c > 0 THEN $4::timestamptz + interval '1 hour' END,
       CASE WHEN awaiting OR reviewed THEN $4::timestamptz + interval '1 hour' + (i % 2880) * interval '1 minute' END,
       created,
       CASE WHEN awaiting AND i % 400 = 0 THEN 'drift' WHEN awaiting OR reviewed THEN 'band' END,
       CASE WHEN awaiting AND (i / 40) % 19 = 7 THEN NULL WHEN awaiting OR reviewed
            THEN ((i::bigint * 7919) % 1000) * 0.0003 END
     FROM (
       SELECT i, awaiting, (NOT awaiting AND i % 5 = 0) AS reviewed,
              CASE WHEN awaiting AND (i / 40) % 3 = 0 THEN i / 120 ELSE 0 END AS c,
              $5::timestamptz + ($6::timestamptz - $5::timestamptz) * (i::float8 / ($3::int + 1)) AS created
       FROM (SELECT i, i % 40 = 0 AS awaiting FROM generate_series($1::int, $2::int) AS i) AS numbered
     ) AS rows`,
    [from, to, RECORDS, NOW.toISOString(), BASE.toISOString(), END.toISOString()],
  );
}

interface Case {
  readonly name: string;
  readonly run: Record<Path, () => Promise<unknown[]>>;
}

async function main(): Promise<void> {
  console.log(`before: ${uptime()}`);
  const built = performance.now();
  for (const path of PATHS) await prepare(path);
  console.log(`both databases built in ${((performance.now() - built) / 1000).toFixed(1)} s`);
  const apps = {} as Record<Path, BenchApp>;
  for (const path of PATHS) apps[path] = await startRecordsApp(DATABASES[path]);
  try {
    const records = (path: Path) => apps[path].get(AssessmentRecords);
    const [{ awaiting }]: { awaiting: number }[] = await apps.plain
      .get(DataSource)
      .query(
        'SELECT count(*)::int AS awaiting FROM judgment_assessments WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL',
      );
    const filters: Record<string, ReviewListFilter> = {
      unfiltered: {},
      'judgment ticket-routing': { judgment: 'ticket-routing' },
      'judgment chargeback': { judgment: 'chargeback' },
      unclaimed: { unclaimed: true },
      'claimed by me': { claimedBy: ME },
      'claimed by others': { claimedByOthers: OTHER },
      'reason drift': { reason: 'drift' },
      'sort=deadline': { sort: 'deadline' },
      'sort=confidence': { sort: 'confidence' },
      'sort=deadline, ticket-routing': { sort: 'deadline', judgment: 'ticket-routing' },
      'sort=deadline, unclaimed': { sort: 'deadline', unclaimed: true },
      'sort=confidence, reason drift': { sort: 'confidence', reason: 'drift' },
      'sort=confidence, chargeback + unclaimed': { sort: 'confidence', judgment: 'chargeback', unclaimed: true },
    };
    const cases: Case[] = [];
    for (const [name, filter] of Object.entries(filters)) {
      const page = (path: Path, after?: number) => () =>
        records(path).awaitingReview({ ...filter, ...(after === undefined ? {} : { after }), limit: PAGE });
      cases.push({ name: `${name}: page 1`, run: { partitioned: page('partitioned'), plain: page('plain') } });
      for (const depth of DEPTHS) {
        const cursor = {} as Record<Path, number>;
        for (const path of PATHS) {
          const id = await cursorAt(records(path), filter, depth);
          if (id !== undefined) cursor[path] = id;
        }
        if (cursor.plain === undefined || cursor.partitioned === undefined) continue;
        if (cursor.plain !== cursor.partitioned) throw new Error(`${name}: the two databases page differently.`);
        cases.push({
          name: `${name}: page ${depth / PAGE + 1}, after`,
          run: { partitioned: page('partitioned', cursor.partitioned), plain: page('plain', cursor.plain) },
        });
      }
    }

    const load = uptime();
    const times = new Map<string, Record<Path, number[]>>(cases.map((c) => [c.name, { partitioned: [], plain: [] }]));
    for (const c of cases) for (const path of PATHS) for (let i = 0; i < 5; i++) await c.run[path](); // warm-up
    for (let i = 0; i < RUNS; i++) {
      for (const c of cases) {
        // Alternate which database goes first.
        for (const path of i % 2 === 0 ? PATHS : [...PATHS].reverse()) {
          const started = performance.now();
          const page = await c.run[path]();
          times.get(c.name)![path].push(performance.now() - started);
          if (page.length !== PAGE) throw new Error(`${c.name} (${path}) gave ${page.length} records, not ${PAGE}.`);
        }
      }
    }
    const table = cases.map((c) => {
      const t = times.get(c.name)!;
      return {
        query: c.name,
        'partitioned p50 ms': Number(median(t.partitioned).toFixed(2)),
        'partitioned p99 ms': Number(percentile(t.partitioned, 0.99).toFixed(2)),
        'plain p50 ms': Number(median(t.plain).toFixed(2)),
        'plain p99 ms': Number(percentile(t.plain, 0.99).toFixed(2)),
        'partitioned / plain': Number((median(t.partitioned) / median(t.plain)).toFixed(2)),
      };
    });
    console.log(
      `\n${RECORDS} records over ${MONTHS} monthly partitions (${BASE.toISOString().slice(0, 7)} to ` +
        `${monthStart(END, -1).toISOString().slice(0, 7)}), ${awaiting} awaiting Review; page of ${PAGE}; ` +
        `${RUNS} interleaved runs each through AssessmentRecords.awaitingReview; load when timing began: ${load}`,
    );
    console.table(table);
    const slow = table.filter((row) => row['partitioned p50 ms'] >= TARGET_MS);
    console.log(
      slow.length === 0
        ? `partitioned: every page p50 < ${TARGET_MS} ms`
        : `partitioned: p50 of ${TARGET_MS} ms or more: ${slow.map((row) => row.query).join('; ')}`,
    );

    const pruneTimes: Record<Path, number[]> = { partitioned: [], plain: [] };
    for (let round = 0; round < 2; round++) {
      // Retention 365 days as of a year after the end of month `round`: exactly that month is older.
      const now = new Date(monthStart(BASE, round + 1).getTime() + RETENTION_DAYS * DAY_MS);
      const line: string[] = [];
      for (const path of round % 2 === 0 ? [...PATHS].reverse() : PATHS) {
        const started = performance.now();
        const result = await apps[path].get(RecordRetention).pruneRecords(now);
        const ms = performance.now() - started;
        pruneTimes[path].push(ms);
        line.push(
          `${path}: ${ms.toFixed(1)} ms (${result.dropped} dropped with ` +
            `${result.partitions.join(', ') || 'no partition'}, ${result.deleted} deleted)`,
        );
      }
      console.log(`prune of ${monthStart(BASE, round).toISOString().slice(0, 7)}: ${line.join('; ')}`);
    }
    // Of two rounds, the slower of each (no median of two).
    const drop = Math.max(...pruneTimes.partitioned);
    const del = Math.max(...pruneTimes.plain);
    console.log(
      `prune of a month (~${Math.round(RECORDS / MONTHS)} records), the slower of 2 rounds: partition drop ` +
        `${drop.toFixed(1)} ms, DELETE ${del.toFixed(1)} ms, DELETE / drop ${(del / drop).toFixed(1)}×`,
    );
  } finally {
    for (const path of PATHS) await apps[path].close();
  }
  console.log(`after: ${uptime()}`);
}

/** The id of the `depth`th record of the filter's list (read 1,000 at a time), if a full page follows it. */
async function cursorAt(
  records: AssessmentRecords,
  filter: ReviewListFilter,
  depth: number,
): Promise<number | undefined> {
  const ids: number[] = [];
  while (ids.length < depth + PAGE) {
    const after = ids.length === 0 ? {} : { after: ids[ids.length - 1] };
    const page = await records.awaitingReview({ ...filter, ...after, limit: 1000 });
    ids.push(...page.map((record) => record.id));
    if (page.length < 1000) break;
  }
  return ids.length >= depth + PAGE ? ids[depth - 1] : undefined;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
