// The Review list at a million records: main's path (the first migration's indexes, OFFSET pages) beside this
// branch's (the partial indexes of migration 1764900000000, `after` pages), on the same table in one run.
// 1,000,000 records built with generate_series: ≈3 % awaiting Review, all of them recent (the newest ids, as once the
// old ones are resolved), 1 % Unassessed spread evenly, four Judgments. Prints p50/p99 per query and the EXPLAIN plans.
//   node -r ./scripts/register.js bench/review-list.bench.ts [records]
import { AssessmentRecords } from 'nestjs-judgment';
import { DataSource } from 'typeorm';
import { CreateJudgmentAssessments1764400000000 } from '../libs/judgment/src/persistence/migrations/1764400000000-create-judgment-assessments';
import { ReviewIndexes1764900000000 } from '../libs/judgment/src/persistence/migrations/1764900000000-review-indexes';
import { type BenchApp, PG, median, percentile, recreateDatabase, startRecordsApp } from './support/bench';

const DATABASE = 'judgment_bench_cost_review_list';
const RECORDS = Number(process.argv[2] ?? 1_000_000);
const AWAITING_SHARE = 0.03;
const PAGE = 20;
const REPEAT = 30;
const JUDGMENTS = ['refund-abuse', 'ticket-triage', 'chargeback', 'review-spam'];

async function main() {
  await recreateDatabase(DATABASE);
  const db = await new DataSource({
    ...PG,
    database: DATABASE,
    migrations: [CreateJudgmentAssessments1764400000000, ReviewIndexes1764900000000],
  }).initialize();
  await db.runMigrations({ transaction: 'each' });
  await db.undoLastMigration(); // main's schema: the first migration only
  const built = performance.now();
  await fill(db);
  console.error(`built ${RECORDS} records in ${Math.round(performance.now() - built)} ms`);

  const app: BenchApp = await startRecordsApp(DATABASE);
  const records = app.get(AssessmentRecords);
  const awaiting = await db.query(
    `SELECT id FROM judgment_assessments WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL ORDER BY id`,
  );
  const filteredAwaiting = await db.query(
    `SELECT id FROM judgment_assessments
      WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL AND judgment = $1 ORDER BY id`,
    [JUDGMENTS[0]],
  );
  // Page 51 starts after the 1000th record: OFFSET 1000 before, after = the id of the 1000th record now (a smaller
  // table than a million may hold fewer: then the last full page).
  const skip = (list: { id: number }[]) => Math.min(50 * PAGE, list.length - PAGE);
  const cursors = {
    unfiltered: { offset: skip(awaiting), after: awaiting[skip(awaiting) - 1].id as number },
    filtered: { offset: skip(filteredAwaiting), after: filteredAwaiting[skip(filteredAwaiting) - 1].id as number },
  };
  const cases = (path: 'before' | 'after') => {
    const page51 = (filtered: boolean) => {
      const cursor = filtered ? cursors.filtered : cursors.unfiltered;
      return path === 'before' ? { offset: cursor.offset } : { after: cursor.after };
    };
    return {
      'awaiting page 1': () => records.awaitingReview({ limit: PAGE }),
      'awaiting page 51': () => records.awaitingReview({ limit: PAGE, ...page51(false) }),
      'awaiting page 1, one judgment': () => records.awaitingReview({ limit: PAGE, judgment: JUDGMENTS[0] }),
      'awaiting page 51, one judgment': () =>
        records.awaitingReview({ limit: PAGE, judgment: JUDGMENTS[0], ...page51(true) }),
      'unassessed page 1': () => records.unassessed({ limit: PAGE }),
      'unassessed page 1, one judgment': () => records.unassessed({ limit: PAGE, judgment: JUDGMENTS[0] }),
    };
  };

  const before = await measure(cases('before'));
  const plansBefore = await plans(db, cursors, 'offset');
  await new ReviewIndexes1764900000000().up(db.createQueryRunner());
  await db.query('ANALYZE judgment_assessments');
  const after = await measure(cases('after'));
  const plansAfter = await plans(db, cursors, 'after');

  const rows = Object.keys(before).map((name) => ({
    query: name,
    'before p50 ms': before[name].p50,
    'before p99 ms': before[name].p99,
    'after p50 ms': after[name].p50,
    'after p99 ms': after[name].p99,
    'before/after': Number((before[name].p50 / after[name].p50).toFixed(1)),
  }));
  console.log(`${RECORDS} records, ${awaiting.length} awaiting Review; page of ${PAGE}; ${REPEAT} runs each`);
  console.table(rows);
  const sizes = await db.query(
    `SELECT indexrelname AS index, pg_size_pretty(pg_relation_size(indexrelid)) AS size
       FROM pg_stat_user_indexes WHERE relname = 'judgment_assessments' ORDER BY indexrelname`,
  );
  console.table(sizes);
  console.log('EXPLAIN before (main: first migration, OFFSET):\n' + plansBefore);
  console.log('EXPLAIN after (partial indexes, after cursor):\n' + plansAfter);
  await app.close();
  await db.destroy();
}

/** Inserts the records in chunks of 100,000 (one statement each); the newest ≈3 % await Review. */
async function fill(db: DataSource): Promise<void> {
  const firstAwaiting = Math.floor(RECORDS * (1 - AWAITING_SHARE));
  for (let from = 1; from <= RECORDS; from += 100_000) {
    const to = Math.min(RECORDS, from + 99_999);
    await db.query(
      `INSERT INTO judgment_assessments (judgment, subject_type, subject_id, evidence, evidence_fingerprint,
         untrusted_paths, questions_fingerprint, answers, engine, model, request_id, provenance_details, failure_type,
         decision, outcome_type, outcome, review_requested_at, resolution, resolver_type, resolver_id, resolved_at,
         created_at)
       SELECT ($4::text[])[1 + n % 4], 'Customer', n::text, json_build_object('note', 'Refund me ' || n),
         md5(n::text) || md5(n::text), '["note"]', md5(n % 4 || 'q') || md5(n % 4 || 'q'),
         CASE WHEN n % 100 = 0 THEN NULL ELSE '{"abusive":0.5}'::json END, 'jev', 'jev-1.13.0', 'req-' || n,
         '{"usage":{"input_tokens":40}}', CASE WHEN n % 100 = 0 THEN 'EngineFailed' END,
         'refund-decision', 'RefundOutcome', CASE WHEN n % 3 = 0 THEN 'escalate' ELSE 'approve' END,
         CASE WHEN n >= $3 OR n % 3 = 0 THEN now() - interval '1 minute' * ($2 - n) / 60 END,
         CASE WHEN n < $3 AND n % 3 = 0 THEN 'approve' END,
         CASE WHEN n < $3 AND n % 3 = 0 THEN 'staff' END,
         CASE WHEN n < $3 AND n % 3 = 0 THEN 'anna' END,
         CASE WHEN n < $3 AND n % 3 = 0 THEN now() END,
         now() - interval '1 minute' * ($2 - n) / 60
       FROM generate_series($1::int, $5::int) AS n`,
      [from, RECORDS, firstAwaiting, JUDGMENTS, to],
    );
  }
  // Unassessed attempts are never decided: no Outcome, no Review.
  await db.query(
    `UPDATE judgment_assessments SET decision = NULL, outcome_type = NULL, outcome = NULL, review_requested_at = NULL,
       resolution = NULL, resolver_type = NULL, resolver_id = NULL, resolved_at = NULL WHERE failure_type IS NOT NULL`,
  );
  await db.query('VACUUM ANALYZE judgment_assessments');
}

async function measure(cases: Record<string, () => Promise<unknown[]>>) {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (const run of Object.values(cases)) await run(); // warm-up
  for (let i = 0; i < REPEAT; i++) {
    for (const [name, run] of Object.entries(cases)) {
      const started = performance.now();
      const page = await run();
      times[name].push(performance.now() - started);
      if (page.length !== PAGE) throw new Error(`${name} returned ${page.length} records, not ${PAGE}.`);
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([name, t]) => [
      name,
      { p50: Number(median(t).toFixed(2)), p99: Number(percentile(t, 0.99).toFixed(2)) },
    ]),
  );
}

/** EXPLAIN ANALYZE of the awaiting-Review page 51, unfiltered and for one Judgment, paged by OFFSET or by id. */
async function plans(
  db: DataSource,
  cursors: Record<'unfiltered' | 'filtered', { offset: number; after: number }>,
  by: 'offset' | 'after',
): Promise<string> {
  const awaiting = 'review_requested_at IS NOT NULL AND resolved_at IS NULL';
  const out: string[] = [];
  for (const [where, cursor] of [
    [awaiting, cursors.unfiltered],
    [`${awaiting} AND judgment = '${JUDGMENTS[0]}'`, cursors.filtered],
  ] as const) {
    const sql =
      by === 'offset'
        ? `SELECT * FROM judgment_assessments WHERE ${where} ORDER BY id LIMIT ${PAGE} OFFSET ${cursor.offset}`
        : `SELECT * FROM judgment_assessments WHERE ${where} AND id > ${cursor.after} ORDER BY id LIMIT ${PAGE}`;
    const plan: { 'QUERY PLAN': string }[] = await db.query(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`);
    out.push(`  ${sql}\n${plan.map((line) => `    ${line['QUERY PLAN']}`).join('\n')}`);
  }
  return out.join('\n');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
