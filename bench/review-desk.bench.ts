// The review desk's list filters and deadline sweep at scale: 1,000,000 records, 30,000 awaiting Review spread over
// the whole table (10,000 claimed by 51 reviewers, ~5,400 of those leases expired), a deadline on every awaiting
// record, 200 of them due. Every query runs through the library (AssessmentRecords, and the sweep's
// RecordWriter.dueForExpiry with its batch), in one interleaved run: page 1 and page 51 by the `after` cursor for
// each filter, page 51 by OFFSET beside it as the baseline (ratio printed), p50/p99, and EXPLAIN (ANALYZE, BUFFERS)
// of the exact SQL TypeORM sent. A Judgment common in the table but rare in Review is timed beside the list's former
// `judgment = name` query (which PostgreSQL answered by walking every awaiting record).
// The queue's triage (issue 30) adds its orders (nearest deadline, least confidence: page 1 and page 51 by `after`,
// alone and after the Judgment, reason and claim filters; OFFSET pages only the age order), the reason and
// claimed-by-others filters, and the counts per Judgment. Awaiting records carry a cause (1 in 10 `drift`, 100
// `collapse`) and a decision_margin (0 to 0.3; 1 in 20 none). A keyed order's page reads the cursor record's key in
// the same statement.
//   node -r ./scripts/register.js bench/review-desk.bench.ts [runs]
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { AssessmentRecords, type ReviewListFilter, judgmentMigrations } from 'nestjs-judgment';
import { DataSource, IsNull, Not, Raw, type Logger as TypeOrmLogger } from 'typeorm';
import { RecordWriter } from '../libs/judgment/src/persistence/record.writer';
import { SWEEP_BATCH } from '../libs/judgment/src/review/review-deadlines.service';
import { PG, median, percentile, recreateDatabase, startRecordsApp } from './support/bench';

const DATABASE = 'judgment_desk_bench';
const RUNS = Number(process.argv[2] ?? 200);
const PAGE = 20;
/** Page 51 starts after the 1000th record. */
const DEEP = 50 * PAGE;
const ME = { type: 'staff', id: 'me' };
const JUDGMENT = 'ticket-routing';
const RARE_JUDGMENT = 'chargeback';
/** Half the table, but only 50 records in Review: the planner, assuming its share holds in Review too, may misjudge. */
const BULK_JUDGMENT = 'bulk-triage';
const DUE = 200;
const TARGET_MS = 5;
const OTHER = { type: 'staff', id: 'r7' };

/** Keeps the last statement TypeORM sent, so it can be EXPLAINed exactly as the library sent it. */
class LastStatement implements TypeOrmLogger {
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

/**
 * Record i awaits Review when i % 33 = 0 (30,000 of the first 990,000); every 5th of the others went to Review and
 * was resolved. Of the awaiting, every 3rd is claimed (claim c = 1..10,000): by staff #me when c % 4 = 0 (2,500, one
 * in six of those expired), else by r0..r49 (odd c expired). Every awaiting record has a deadline; the first 200 are
 * due. A quarter of all records are of the Judgment `ticket-routing`, one in twenty of `chargeback`; `bulk-triage` has
 * over a third of the table but 50 records in Review.
 */
async function seed(db: DataSource): Promise<void> {
  const started = performance.now();
  await db.query(`
    INSERT INTO judgment_assessments (judgment, subject_type, subject_id, evidence_fingerprint, untrusted_paths,
      questions_fingerprint, answers, decision, outcome_type, outcome, review_requested_at, resolved_at, resolution,
      resolver_type, resolver_id, claim_holder_type, claim_holder_id, claim_expires_at, review_deadline_at, created_at,
      review_cause, decision_margin)
    SELECT
      CASE WHEN i % 4 = 0 THEN '${JUDGMENT}' WHEN i % 20 = 1 THEN '${RARE_JUDGMENT}'
           WHEN (i % 2 = 1 AND NOT awaiting) OR i % 19800 = 33 THEN '${BULK_JUDGMENT}' ELSE 'refund-abuse' END,
      'Refund', (i % 50000)::text, repeat('a', 64), '[]', repeat('b', 64), '{"abusive": 0.5}', 'RefundDecision',
      'RefundOutcome',
      CASE WHEN awaiting OR reviewed THEN 'escalate' ELSE 'approve' END,
      CASE WHEN awaiting OR reviewed THEN now() - interval '3 days' END,
      CASE WHEN reviewed THEN now() - interval '1 day' END,
      CASE WHEN reviewed THEN 'approve' END,
      CASE WHEN reviewed THEN 'staff' END,
      CASE WHEN reviewed THEN 'r' || (i % 50) END,
      CASE WHEN c > 0 THEN 'staff' END,
      CASE WHEN c > 0 AND c % 4 = 0 THEN 'me' WHEN c > 0 THEN 'r' || (c % 50) END,
      CASE WHEN c > 0 AND (c % 24 = 0 OR (c % 4 <> 0 AND c % 2 = 1)) THEN now() - interval '1 hour'
           WHEN c > 0 THEN now() + interval '1 hour' END,
      CASE WHEN awaiting AND i <= 33 * ${DUE} THEN now() - interval '1 minute'
           WHEN awaiting OR reviewed THEN now() + interval '1 hour' + (i % 2880) * interval '1 minute' END,
      now() - (1000000 - i) * interval '1 second',
      CASE WHEN awaiting AND i % (33 * 300) = 0 THEN 'collapse' WHEN awaiting AND i % 330 = 0 THEN 'drift'
           WHEN awaiting OR reviewed THEN 'band' END,
      CASE WHEN (i / 33) % 20 = 7 THEN NULL ELSE ((i::bigint * 7919) % 1000) * 0.0003 END
    FROM (
      SELECT i, awaiting, (NOT awaiting AND i % 5 = 0) AS reviewed,
             CASE WHEN awaiting AND (i / 33) % 3 = 0 THEN i / 99 ELSE 0 END AS c
      FROM (SELECT i, (i % 33 = 0 AND i <= 990000) AS awaiting FROM generate_series(1, 1000000) AS i) AS numbered
    ) AS rows`);
  await db.query('VACUUM ANALYZE judgment_assessments');
  const [counts] = await db.query(`SELECT count(*)::int AS total,
      count(*) FILTER (WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL)::int AS awaiting,
      count(*) FILTER (WHERE claim_holder_id IS NOT NULL)::int AS claimed,
      count(*) FILTER (WHERE claim_expires_at <= now())::int AS expired,
      count(*) FILTER (WHERE claim_holder_id = 'me' AND claim_expires_at > now())::int AS mine,
      count(*) FILTER (WHERE review_deadline_at <= now() AND resolved_at IS NULL)::int AS due
    FROM judgment_assessments`);
  console.log(
    `seeded ${counts.total} records in ${((performance.now() - started) / 1000).toFixed(1)} s: ` +
      `${counts.awaiting} awaiting Review, ${counts.claimed} claimed (${counts.expired} leases expired, ` +
      `${counts.mine} live ones held by staff #me), ${counts.due} past the deadline`,
  );
}

interface Case {
  readonly name: string;
  readonly run: () => Promise<unknown[]>;
  readonly expected: number;
}

async function main(): Promise<void> {
  await recreateDatabase(DATABASE);
  const db = await new DataSource({ ...PG, database: DATABASE, migrations: judgmentMigrations }).initialize();
  await db.runMigrations({ transaction: 'each' });
  await seed(db);

  const statement = new LastStatement();
  const app = await startRecordsApp(DATABASE, statement);
  const records = app.get(AssessmentRecords);
  const rows = app.get(RecordWriter);
  const filters: Record<string, ReviewListFilter> = {
    unfiltered: {},
    unclaimed: { unclaimed: true },
    'claimed by me': { claimedBy: ME },
    [`${JUDGMENT} + unclaimed`]: { judgment: JUDGMENT, unclaimed: true },
    [`${RARE_JUDGMENT} + unclaimed`]: { judgment: RARE_JUDGMENT, unclaimed: true },
    // The queue's triage (issue 30): its sorts, alone and after each filter, and its new filters.
    'by deadline': { sort: 'deadline' },
    'by least confidence': { sort: 'confidence' },
    'by deadline, unclaimed': { sort: 'deadline', unclaimed: true },
    'claimed by others': { claimedByOthers: OTHER },
    'by deadline, claimed by others': { sort: 'deadline', claimedByOthers: OTHER },
    'by least confidence, claimed by others': { sort: 'confidence', claimedByOthers: OTHER },
    [`by deadline, ${JUDGMENT}`]: { sort: 'deadline', judgment: JUDGMENT },
    [`by least confidence, ${RARE_JUDGMENT} + unclaimed`]: {
      sort: 'confidence',
      judgment: RARE_JUDGMENT,
      unclaimed: true,
    },
    'reason drift': { reason: 'drift' },
    'by deadline, reason drift': { sort: 'deadline', reason: 'drift' },
    'by least confidence, reason drift + unclaimed': { sort: 'confidence', reason: 'drift', unclaimed: true },
  };
  /** Filters with too few records for page 51: page 1 only. */
  const shallow: Record<string, ReviewListFilter> = {
    'reason collapse (100 records)': { reason: 'collapse' },
    'by deadline, reason collapse': { sort: 'deadline', reason: 'collapse' },
    [`by least confidence, ${JUDGMENT} + reason collapse`]: {
      sort: 'confidence',
      judgment: JUDGMENT,
      reason: 'collapse',
    },
  };
  const cases: Case[] = [];
  for (const [name, filter] of Object.entries(filters)) {
    const first = await records.awaitingReview({ ...filter, limit: DEEP });
    const after = first[DEEP - 1].id; // page 51 begins after the 1000th record
    const page = (extra: ReviewListFilter) => () => records.awaitingReview({ ...filter, ...extra, limit: PAGE });
    cases.push(
      { name: `${name}: page 1`, run: page({}), expected: PAGE },
      { name: `${name}: page 51, after cursor`, run: page({ after }), expected: PAGE },
    );
    // OFFSET pages only the age order.
    if (filter.sort === undefined) {
      cases.push({ name: `${name}: page 51, OFFSET (baseline)`, run: page({ offset: DEEP }), expected: PAGE });
    }
  }
  for (const [name, filter] of Object.entries(shallow)) {
    const expected = Math.min(PAGE, (await records.awaitingReview({ ...filter, limit: 1000 })).length);
    cases.push({ name: `${name}: page 1`, run: () => records.awaitingReview({ ...filter, limit: PAGE }), expected });
  }
  // The queue's counts per Judgment (the page's heading): a count of the awaiting records by Judgment.
  const judgments = Object.keys(await records.backlog()).length;
  cases.push({
    name: 'counts per Judgment: backlog()',
    run: async () => Object.keys(await records.backlog()),
    expected: judgments,
  });
  cases.push(
    {
      name: `${BULK_JUDGMENT} + unclaimed: page 1`,
      run: () => records.awaitingReview({ judgment: BULK_JUDGMENT, unclaimed: true, limit: PAGE }),
      expected: PAGE,
    },
    {
      // The list's query before it read the Judgment as a range ordered by (judgment, id): the baseline.
      name: `${BULK_JUDGMENT} + unclaimed: page 1, judgment = (baseline)`,
      run: () =>
        rows.repository().find({
          where: {
            reviewRequestedAt: Not(IsNull()),
            resolvedAt: IsNull(),
            judgment: BULK_JUDGMENT,
            claimExpiresAt: Raw((column) => `(${column} IS NULL OR ${column} <= :now)`, { now: new Date() }),
          },
          order: { id: 'ASC' },
          take: PAGE,
        }),
      expected: PAGE,
    },
  );
  cases.push({
    name: `deadline sweep: dueForExpiry(now, ${SWEEP_BATCH})`,
    run: () => rows.dueForExpiry(new Date(), SWEEP_BATCH),
    expected: DUE,
  });

  const load = loadavg().map((l) => l.toFixed(2));
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (const c of cases) for (let i = 0; i < 10; i++) await c.run(); // warm-up
  for (let i = 0; i < RUNS; i++) {
    for (const c of cases) {
      const started = performance.now();
      const result = await c.run();
      times.get(c.name)!.push(performance.now() - started);
      if (result.length !== c.expected) throw new Error(`${c.name} gave ${result.length} rows, not ${c.expected}.`);
    }
  }

  const executed = new Map<string, number>();
  for (const c of cases) {
    await c.run();
    const plan = (await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.parameters)) as Array<{
      'QUERY PLAN': string;
    }>;
    // The entity's 40 columns are elided from the SELECT list; the rest is the statement as sent.
    const sql = statement.sql.replace(/\s+/g, ' ').replace(/^SELECT .{300,}? FROM /, 'SELECT <every column> FROM ');
    console.log(`\n== ${c.name}\n${sql}\n  -- ${JSON.stringify(statement.parameters)}`);
    console.log(plan.map((line) => `  ${line['QUERY PLAN']}`).join('\n'));
    const execution = plan.map((line) => /^Execution Time: ([\d.]+) ms/.exec(line['QUERY PLAN'])).find(Boolean);
    executed.set(c.name, Number(execution?.[1]));
  }

  const p50 = (name: string) => median(times.get(name)!);
  const table = cases.map((c) => {
    const baseline = c.name.includes('after cursor')
      ? c.name.replace('after cursor', 'OFFSET (baseline)')
      : `${c.name}, judgment = (baseline)`;
    return {
      query: c.name,
      'p50 ms': Number(p50(c.name).toFixed(2)),
      'p99 ms': Number(percentile(times.get(c.name)!, 0.99).toFixed(2)),
      'EXPLAIN execution ms': executed.get(c.name),
      'baseline / this': times.has(baseline) ? `x${(p50(baseline) / p50(c.name)).toFixed(1)}` : '',
    };
  });
  console.log(`\n${RUNS} interleaved runs of each, round trip through TypeORM; load average before: ${load.join(' ')}`);
  console.table(table);
  const sizes = await db.query(
    `SELECT indexrelname AS index, pg_size_pretty(pg_relation_size(indexrelid)) AS size, idx_scan AS scans
       FROM pg_stat_user_indexes WHERE relname = 'judgment_assessments' ORDER BY indexrelname`,
  );
  console.table(sizes);
  const slow = table.filter((row) => !row.query.includes('(baseline)') && row['p50 ms'] >= TARGET_MS);
  console.log(
    slow.length === 0
      ? `every filter (page 1 and page 51 by after) and the sweep: p50 < ${TARGET_MS} ms`
      : `p50 of ${TARGET_MS} ms or more: ${slow.map((row) => row.query).join('; ')}`,
  );
  await app.close();
  await db.destroy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
