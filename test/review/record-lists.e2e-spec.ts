// Record lists at scale (issue 20): a default and a maximum limit on every list, keyset pagination with `after`, and
// the partial indexes of the awaiting-Review and Unassessed lists, made by the migrations on PostgreSQL and SQLite.
import { InvalidRecordQuery, judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { DEFAULT_RECORD_LIMIT, MAX_RECORD_LIMIT } from 'nestjs-judgment/http';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import { DataSource } from 'typeorm';
import { type ReviewApp, prepareDatabase, startApp, startSimulator } from './review.fixtures';
import { TRIAGE_INDEXES } from '../../libs/judgment/src/persistence/migrations/1765510000000-review-triage';
import { CLAIM_KEY_INDEX } from '../../libs/judgment/src/persistence/migrations/1765540000000-claim-holder-key';

const DATABASE = 'judgment_cost_record_lists';
let simulator: JevSimulator;
let context: ReviewApp;

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  let url: string;
  ({ simulator, url } = await startSimulator());
  context = await startApp(DATABASE, url);
});

afterAll(async () => {
  await context?.app.close();
  await simulator?.stop();
});

/** Inserts `count` records of `judgment` in one statement: awaiting Review, Unassessed, or plainly answered. */
async function insertRecords(judgment: string, count: number, state: 'awaiting' | 'unassessed' | 'answered') {
  await context.dataSource.query(
    `INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint,
       answers, failure_type, review_requested_at)
     SELECT $1, repeat('e', 64), '[]', repeat('q', 64), $2::json, $3, $4::timestamp FROM generate_series(1, $5)`,
    [
      judgment,
      state === 'unassessed' ? null : '{}',
      state === 'unassessed' ? 'EngineFailed' : null,
      state === 'awaiting' ? new Date() : null,
      count,
    ],
  );
}

describe('every list has a default and a maximum limit', () => {
  it(`awaitingReview(), unassessed(), answered() return ${DEFAULT_RECORD_LIMIT} records when no limit is given`, async () => {
    await insertRecords('lists-default', DEFAULT_RECORD_LIMIT + 5, 'awaiting');
    await insertRecords('lists-default', DEFAULT_RECORD_LIMIT + 5, 'unassessed');
    const filter = { judgment: 'lists-default' };
    expect(await context.records.awaitingReview(filter)).toHaveLength(DEFAULT_RECORD_LIMIT);
    expect(await context.records.unassessed(filter)).toHaveLength(DEFAULT_RECORD_LIMIT);
    expect(await context.records.answered(filter)).toHaveLength(DEFAULT_RECORD_LIMIT);
    expect(await context.records.awaitingReview({ ...filter, limit: DEFAULT_RECORD_LIMIT + 5 })).toHaveLength(
      DEFAULT_RECORD_LIMIT + 5,
    );
  });

  it(`a limit above ${MAX_RECORD_LIMIT}, below 1 or not whole is refused with InvalidRecordQuery naming the limit`, async () => {
    for (const limit of [MAX_RECORD_LIMIT + 1, 0, 2.5]) {
      const query = context.records.unassessed({ limit });
      await expect(query).rejects.toThrow(InvalidRecordQuery);
      await expect(query).rejects.toThrow(`The limit must be a whole number from 1 to ${MAX_RECORD_LIMIT}`);
    }
    await expect(context.records.answered({ limit: MAX_RECORD_LIMIT })).resolves.toEqual(expect.any(Array));
  });
});

describe('keyset pagination: after', () => {
  it('pages through the awaiting records by id with after = the last id of the previous page, without gaps', async () => {
    await insertRecords('lists-after', 25, 'awaiting');
    await insertRecords('lists-after', 5, 'answered'); // not awaiting: never listed
    const everything = await context.records.awaitingReview({ judgment: 'lists-after', limit: 1000 });
    expect(everything).toHaveLength(25);
    const seen: number[] = [];
    let after = 0;
    for (;;) {
      const page = await context.records.awaitingReview({ judgment: 'lists-after', limit: 10, after });
      if (page.length === 0) break;
      expect(page.every((record) => record.id > after && record.isAwaitingReview())).toBe(true);
      seen.push(...page.map((record) => record.id));
      after = page[page.length - 1].id;
    }
    expect(seen).toEqual(everything.map((record) => record.id));
  });

  it('unassessed() pages with after too', async () => {
    await insertRecords('lists-after-failed', 3, 'unassessed');
    const [first, ...rest] = await context.records.unassessed({ judgment: 'lists-after-failed' });
    expect(
      (await context.records.unassessed({ judgment: 'lists-after-failed', after: first.id })).map((r) => r.id),
    ).toEqual(rest.map((r) => r.id));
  });

  it('after together with an offset, or an after that is not a record id, is refused with InvalidRecordQuery', async () => {
    await expect(context.records.awaitingReview({ after: 10, offset: 5 })).rejects.toThrow(
      'Pass either after (keyset pagination, fast) or offset (slow on large tables), not both.',
    );
    await expect(context.records.awaitingReview({ after: -1 })).rejects.toThrow(InvalidRecordQuery);
  });
});

describe('the partial indexes', () => {
  const PARTIAL = [
    'judgment_assessments_awaiting_review_index',
    'judgment_assessments_awaiting_review_judgment_index',
    'judgment_assessments_unassessed_index',
    'judgment_assessments_unassessed_judgment_index',
    ...TRIAGE_INDEXES.map((index) => index.name),
  ];

  it('on PostgreSQL the migrations leave the schema exactly as the entity declares it (nothing to synchronize)', async () => {
    const pending = await context.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
    const indexes: { indexname: string; indexdef: string }[] = await context.dataSource.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'judgment_assessments' ORDER BY indexname`,
    );
    const names = indexes.map((index) => index.indexname);
    expect(names).toEqual(expect.arrayContaining(PARTIAL));
    for (const unused of ['questions_fingerprint', 'cached_from', 'resolver', 'review', 'awaiting_claim']) {
      expect(names).not.toContain(`judgment_assessments_${unused}_index`);
    }
    expect(indexes.find((index) => index.indexname === PARTIAL[0])?.indexdef).toMatch(
      /WHERE \(\(review_requested_at IS NOT NULL\) AND \(resolved_at IS NULL\)\)/,
    );
    // PostgreSQL only: the claim-key index the claimedBy filter reads (the holder as one key, then id).
    expect(indexes.find((index) => index.indexname === CLAIM_KEY_INDEX)?.indexdef).toMatch(
      /\(\(ARRAY\[\(claim_holder_type\)::text, \(claim_holder_id\)::text\]\), id\) WHERE/,
    );
  });

  it('on SQLite the migrations make the same partial indexes, and the awaiting-Review page, the claim filter and the deadline sweep read them', async () => {
    const sqlite = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: judgmentEntities,
      migrations: judgmentMigrations,
    });
    await sqlite.initialize();
    try {
      await sqlite.runMigrations();
      const rows: { name: string; sql: string }[] = await sqlite.query(
        `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'judgment_assessments'`,
      );
      expect(rows.map((row) => row.name)).toEqual(expect.arrayContaining(PARTIAL));
      expect(rows.find((row) => row.name === PARTIAL[2])?.sql).toContain('WHERE failure_type IS NOT NULL');
      const plan: { detail: string }[] = await sqlite.query(
        `EXPLAIN QUERY PLAN SELECT id FROM judgment_assessments
          WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL AND judgment = 'x' AND id > 0 ORDER BY id LIMIT 20`,
      );
      expect(plan.map((step) => step.detail).join('\n')).toContain(
        'judgment_assessments_awaiting_review_judgment_index',
      );
      const names = async () =>
        (
          (await sqlite.query(
            `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'judgment_assessments'`,
          )) as { name: string }[]
        ).map((row) => row.name);
      expect(await names()).not.toContain('judgment_assessments_awaiting_claim_index');
      // The review desk's indexes survive the migrations run in one go, and its filters and sweep read them.
      const reads = async (sql: string) =>
        ((await sqlite.query(`EXPLAIN QUERY PLAN ${sql}`)) as { detail: string }[]).map((step) => step.detail).join();
      await expect(
        reads(`SELECT * FROM judgment_assessments WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL
          AND claim_holder_type = 'staff' AND claim_holder_id = 'me' AND claim_expires_at > 0 AND id > 0
          ORDER BY id LIMIT 20`),
      ).resolves.toContain('judgment_assessments_awaiting_holder_index');
      await expect(
        reads(`SELECT id FROM judgment_assessments WHERE review_deadline_at <= '2030-01-01' AND resolved_at IS NULL
          ORDER BY review_deadline_at LIMIT 500`),
      ).resolves.toContain('judgment_assessments_review_deadline_index');
      // The queue's triage orders read their indexes: nearest deadline first, least confident first of a Judgment.
      await expect(
        reads(`SELECT * FROM judgment_assessments WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL
          AND review_deadline_at IS NOT NULL ORDER BY review_deadline_at, id LIMIT 20`),
      ).resolves.toMatch(/^SEARCH judgment_assessments USING INDEX judgment_assessments_\w*deadline_index[^,]*$/);
      await expect(
        reads(`SELECT * FROM judgment_assessments WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL
          AND judgment BETWEEN 'a' AND 'a' AND decision_margin IS NOT NULL
          ORDER BY judgment, decision_margin, id LIMIT 20`),
      ).resolves.toMatch(
        /^SEARCH judgment_assessments USING INDEX judgment_assessments_awaiting_judgment_margin_index/,
      );
      const tables = async () =>
        ((await sqlite.query(`SELECT name FROM sqlite_master WHERE type = 'table'`)) as { name: string }[]).map(
          (row) => row.name,
        );
      expect(await names()).not.toContain(CLAIM_KEY_INDEX);
      expect(await names()).toContain('judgment_assessments_job_index');
      await sqlite.undoLastMigration(); // RecordJob1765600000000
      expect(await names()).not.toContain('judgment_assessments_job_index');
      expect(await tables()).toContain('judgment_review_votes');
      await sqlite.undoLastMigration(); // ClaimHolderKey1765540000000 (PostgreSQL only: nothing on SQLite)
      expect(await tables()).toContain('judgment_review_votes');
      await sqlite.undoLastMigration(); // ReviewVotes1765530000000 (its own table)
      expect(await tables()).not.toContain('judgment_review_votes');
      await sqlite.undoLastMigration(); // RoundCost1765520000000 (columns, no index)
      await sqlite.undoLastMigration(); // ReviewTriage1765510000000
      expect(await names()).not.toContain('judgment_assessments_awaiting_deadline_index');
      await sqlite.undoLastMigration(); // ClaimedAt1765500000000 (a column, no index)
      await sqlite.undoLastMigration(); // OutcomeTypeNamesTheEnum1765300000000 (rows only)
      await sqlite.undoLastMigration(); // ReviewCause1765250000000
      expect(await names()).toContain('judgment_assessments_awaiting_review_judgment_index');
      await sqlite.undoLastMigration(); // ReviewDeskIndexes1765100000000
      expect(await names()).toContain('judgment_assessments_awaiting_claim_index');
      await sqlite.undoLastMigration(); // Timestamptz1765000000000 (changes nothing on SQLite)
      await sqlite.undoLastMigration(); // ReviewIndexes1764900000000
      expect(await names()).toContain('judgment_assessments_review_index');
      expect(await names()).not.toContain(PARTIAL[0]);
    } finally {
      await sqlite.destroy();
    }
  });
});
