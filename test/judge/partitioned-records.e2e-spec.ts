// Partitioned records on PostgreSQL (issue 34, point 3): the opt-in migration rebuilds an existing, filled
// judgment_assessments as a table range-partitioned by month of created_at (rows and ids kept, every index kept), the
// app records and decides on it, a row of a month without a partition lands in the default partition (never a failed
// write) and is moved out with a warning, prune drops whole months and deletes the rest, and the down migration gives
// the plain table back. SQLite: the migration does nothing.
import { Logger, type INestApplicationContext } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import {
  type Assessment,
  AssessmentRecord,
  AssessmentRecords,
  Decision,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  Likelihood,
  judgmentEntities,
  judgmentMigrations,
} from 'nestjs-judgment';
import { PG, recreateDatabase } from '../support/postgres';
import { RecordRetention } from '../../libs/judgment/src/records/record-retention.service';
import { createMonthPartition, monthStart, partitionName } from '../../libs/judgment/src/persistence/record-partitions';

const DATABASE = 'judgment_partitioned_records';
const DAY_MS = 86_400_000;
jest.setTimeout(60_000);

enum Verdict {
  Keep = 'keep',
  Remove = 'remove',
}

@Decision({ name: 'partition-decision', outcomes: Verdict, review: [], version: '1' })
class PartitionDecision implements Decision<PostCheck, Verdict> {
  decide(assessment: Assessment<PostCheck>): Verdict {
    return assessment.likelihood('spam').above(0.5) ? Verdict.Remove : Verdict.Keep;
  }
}

@Judgment({ name: 'partition-post', decision: () => PartitionDecision })
class PostCheck implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { post: Evidence.untrusted(this.text) };
  }
  questions() {
    return { spam: Likelihood.that('The post is spam.') };
  }
}

let dataSource: DataSource;
let app: INestApplicationContext | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
  if (dataSource?.isInitialized) await dataSource.destroy();
});

async function openDataSource(): Promise<DataSource> {
  return new DataSource({
    ...PG,
    database: DATABASE,
    entities: judgmentEntities,
    migrations: [...judgmentMigrations, ...judgmentMigrations.partitioned],
  }).initialize();
}

async function startApp(): Promise<INestApplicationContext> {
  const module = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({ ...PG, database: DATABASE, entities: judgmentEntities }),
      EventEmitterModule.forRoot(),
      JudgmentModule.forRoot({
        engine: 'mock',
        engines: { mock: { driver: 'mock', model: 'mock-1.0.0' } },
        persistence: { retentionDays: 90 },
      }),
      JudgmentModule.forFeature([PostCheck]),
    ],
  }).compile();
  const started = module.createNestApplication({ logger: ['warn', 'error'] });
  await started.init();
  return started;
}

/** Rows as the test compares them: id, month and the review column (a partial index's condition). */
async function rows(): Promise<{ id: number; created_at: string; review_requested_at: string | null }[]> {
  return dataSource.query(
    'SELECT id, created_at::text, review_requested_at::text FROM judgment_assessments ORDER BY id',
  );
}

async function indexNames(): Promise<string[]> {
  const found: { name: string }[] = await dataSource.query(
    "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'judgment_assessments' ORDER BY 1",
  );
  return found.map(({ name }) => name);
}

async function partitions(): Promise<string[]> {
  const found: { name: string }[] = await dataSource.query(
    "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'judgment_assessments'::regclass ORDER BY 1",
  );
  return found.map(({ name }) => name);
}

async function partitionOf(id: number): Promise<string> {
  const [row] = await dataSource.query(
    'SELECT tableoid::regclass::text AS name FROM judgment_assessments WHERE id = $1',
    [id],
  );
  return row.name;
}

it('partitions a filled table by month, keeps rows, ids and indexes, and the down migration restores it', async () => {
  await recreateDatabase(DATABASE);
  dataSource = new DataSource({
    ...PG,
    database: DATABASE,
    entities: judgmentEntities,
    migrations: judgmentMigrations,
  });
  await dataSource.initialize();
  await dataSource.runMigrations();
  // An existing table: three records a month over the last 15 months, the first of each month awaiting Review.
  await dataSource.query(
    `INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint,
       created_at, review_requested_at)
     SELECT 'partition-post', repeat('a', 64), '[]', repeat('0', 64),
            date_trunc('month', now()) - make_interval(months => m) + make_interval(days => 2, hours => n),
            CASE WHEN n = 0 THEN now() END
       FROM generate_series(14, 0, -1) AS m, generate_series(0, 2) AS n`,
  );
  const before = await rows();
  const indexesBefore = await indexNames();
  expect(before).toHaveLength(45);
  await dataSource.destroy();

  dataSource = await openDataSource();
  await dataSource.runMigrations();
  const [{ partitioned }] = await dataSource.query(
    "SELECT count(*)::int AS partitioned FROM pg_partitioned_table WHERE partrelid = 'judgment_assessments'::regclass",
  );
  expect(partitioned).toBe(1);
  // Every row, with its id; every index by its name; the primary key now (id, created_at).
  expect(await rows()).toEqual(before);
  expect(await indexNames()).toEqual(indexesBefore);
  const [{ key }] = await dataSource.query(
    "SELECT pg_get_constraintdef(oid) AS key FROM pg_constraint WHERE conrelid = 'judgment_assessments'::regclass AND contype = 'p'",
  );
  expect(key).toBe('PRIMARY KEY (id, created_at)');
  // One partition per month from the oldest record's to two months ahead, and the default one (empty).
  const now = new Date();
  const months = Array.from({ length: 17 }, (_, n) => partitionName(monthStart(now, n - 14)));
  expect(await partitions()).toEqual([...months, 'judgment_assessments_default'].sort());
  expect(await partitionOf(before[0].id)).toBe(months[0]);
  // The awaiting-Review list still reads its partial index, on each partition (seq scans off: 3 rows a partition).
  const runner = dataSource.createQueryRunner();
  await runner.query('SET enable_seqscan = off');
  const plan: { 'QUERY PLAN': string }[] = await runner.query(
    'EXPLAIN SELECT id FROM judgment_assessments WHERE review_requested_at IS NOT NULL AND resolved_at IS NULL ORDER BY id LIMIT 20',
  );
  await runner.query('RESET enable_seqscan');
  await runner.release();
  const children: { name: string }[] = await dataSource.query(
    "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'judgment_assessments_awaiting_review_index'::regclass",
  );
  expect(children).toHaveLength(18);
  const used = plan.map((line) => /using (\S+)/.exec(line['QUERY PLAN'])?.[1]).filter(Boolean);
  expect(used).toHaveLength(18);
  expect(used.every((name) => children.some((child) => child.name === name))).toBe(true);

  // The app records and decides on the partitioned table; ids go on from the old table's sequence.
  app = await startApp();
  const assessment = await app.get(Judge).assess(new PostCheck('Buy now [[spam=0.9]]'));
  await assessment.outcome();
  const written = await dataSource.getRepository(AssessmentRecord).find({ order: { id: 'DESC' }, take: 1 });
  expect(written[0].id).toBe(before[before.length - 1].id + 1);
  expect(written[0].outcome).not.toBeNull();
  expect(await partitionOf(written[0].id)).toBe(partitionName(monthStart(now)));

  // A month without a partition: the default partition takes the row, and no write fails.
  const far = new Date(monthStart(now, 5).getTime() + 3 * DAY_MS);
  const [{ id: farId }] = await dataSource.query(
    `INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint, created_at)
     VALUES ('partition-post', repeat('a', 64), '[]', repeat('0', 64), $1) RETURNING id`,
    [far.toISOString()],
  );
  expect(await partitionOf(farId)).toBe('judgment_assessments_default');
  // When that month comes (here: a prune run as of then), its partition is created and the row moved, with a warning.
  const warn = jest.spyOn(Logger.prototype, 'warn');
  const retention = app.get(RecordRetention);
  // A record of the month the cut-off falls in, older than the cut-off: deleted row by row.
  const cut = new Date(far.getTime() - 90 * DAY_MS);
  const straddling = new Date((monthStart(cut).getTime() + cut.getTime()) / 2);
  await dataSource.query(
    `INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint, created_at)
     VALUES ('partition-post', repeat('a', 64), '[]', repeat('0', 64), $1)`,
    [straddling.toISOString()],
  );
  const expected: { old: number }[] = await dataSource.query(
    'SELECT count(*)::int AS old FROM judgment_assessments WHERE created_at < $1',
    [new Date(far.getTime() - 90 * DAY_MS).toISOString()],
  );
  const [{ wholeMonths }] = await dataSource.query(
    'SELECT count(*)::int AS "wholeMonths" FROM judgment_assessments WHERE created_at < $1',
    [monthStart(new Date(far.getTime() - 90 * DAY_MS)).toISOString()],
  );
  const pruned = await retention.pruneRecords(far);
  expect(await partitionOf(farId)).toBe(partitionName(monthStart(far)));
  const warnings = warn.mock.calls.map((call) => JSON.stringify(call[0]));
  expect(warnings.some((line) => line.includes('moved out of the default partition'))).toBe(true);
  warn.mockRestore();

  // Retention of 90 days as of then: every month wholly older is dropped as a partition, the rest deleted row by row.
  const cutoff = new Date(far.getTime() - 90 * DAY_MS);
  const droppedMonths = months.filter((name) => {
    const month = Number(name.slice(-6));
    const year = Math.floor(month / 100);
    return monthStart(new Date(Date.UTC(year, (month % 100) - 1, 1)), 1) <= cutoff;
  });
  expect(pruned.partitions).toEqual(droppedMonths);
  expect(pruned.dropped).toBe(wholeMonths);
  expect(pruned.deleted).toBe(1); // the straddling month's older part, row by row
  expect(pruned.dropped + pruned.deleted).toBe(expected[0].old);
  const [{ older }] = await dataSource.query(
    'SELECT count(*)::int AS older FROM judgment_assessments WHERE created_at < $1',
    [cutoff.toISOString()],
  );
  expect(older).toBe(0);
  expect((await partitions()).some((name) => droppedMonths.includes(name))).toBe(false);
  const kept = await rows();
  await app.close();
  app = undefined;

  // Down: the plain table again, same rows and ids, primary key (id), the same indexes, the sequence going on.
  await dataSource.undoLastMigration();
  const [{ still }] = await dataSource.query(
    "SELECT count(*)::int AS still FROM pg_partitioned_table WHERE partrelid = 'judgment_assessments'::regclass",
  );
  expect(still).toBe(0);
  expect(await rows()).toEqual(kept);
  expect(await indexNames()).toEqual(indexesBefore);
  const [{ plainKey }] = await dataSource.query(
    "SELECT pg_get_constraintdef(oid) AS \"plainKey\" FROM pg_constraint WHERE conrelid = 'judgment_assessments'::regclass AND contype = 'p'",
  );
  expect(plainKey).toBe('PRIMARY KEY (id)');
  const [{ id: nextId }] = await dataSource.query(
    `INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint)
     VALUES ('partition-post', repeat('a', 64), '[]', repeat('0', 64)) RETURNING id`,
  );
  expect(nextId).toBe(farId + 2); // after the straddling record
});

it("pages a reviewer's claims across partitions in id order, each partition read through its claim-key index", async () => {
  await recreateDatabase(DATABASE);
  dataSource = await openDataSource();
  await dataSource.runMigrations();
  const now = new Date();
  for (let back = 3; back >= 1; back--) await createMonthPartition(dataSource, monthStart(now, -back));
  // 600 records awaiting Review over the last three months and this one: claims of staff #ann (every 3rd), of staff
  // #bob (every 3rd, one later), of staff #ann that ran out (every 20th), and a resolved record that ann still holds.
  await dataSource.query(
    `INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint,
       created_at, review_requested_at, resolved_at, claim_holder_type, claim_holder_id, claim_expires_at)
     SELECT 'partition-post', repeat('a', 64), '[]', repeat('0', 64),
            date_trunc('month', now()) - make_interval(months => 3 - i / 150) + make_interval(hours => i % 150),
            now(), CASE WHEN i = 6 THEN now() END,
            CASE WHEN i % 3 <> 2 THEN 'staff' END,
            CASE WHEN i % 3 = 0 THEN 'ann' WHEN i % 3 = 1 THEN 'bob' END,
            CASE WHEN i % 3 = 2 THEN NULL WHEN i % 20 = 0 THEN now() - interval '1 minute'
                 ELSE now() + interval '1 hour' END
       FROM generate_series(0, 599) AS i`,
  );
  await dataSource.query('ANALYZE judgment_assessments');
  const expected: number[] = (
    await dataSource.query(
      `SELECT id FROM judgment_assessments WHERE claim_holder_id = 'ann' AND claim_expires_at > now()
          AND resolved_at IS NULL ORDER BY id`,
    )
  ).map((row: { id: number }) => row.id);
  const months = new Set(
    (
      await dataSource.query(
        `SELECT DISTINCT tableoid::regclass::text AS name FROM judgment_assessments WHERE id = ANY($1)`,
        [expected],
      )
    ).map((row: { name: string }) => row.name),
  );
  expect(months.size).toBe(4);

  app = await startApp();
  const records = app.get(AssessmentRecords);
  const ann = { type: 'staff', id: 'ann' };
  const seen: number[] = [];
  for (let after: number | undefined; ;) {
    const page = await records.awaitingReview({ claimedBy: ann, limit: 40, ...(after ? { after } : {}) });
    if (page.length === 0) break;
    seen.push(...page.map((record) => record.id));
    after = page[page.length - 1].id;
  }
  expect(seen).toEqual(expected);

  // The statement the list sends, explained: every partition is read through its child of the claim-key index.
  const sent: [string, unknown[]][] = [];
  const send = PostgresQueryRunner.prototype.query;
  const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query').mockImplementation(function (
    this: PostgresQueryRunner,
    ...args: Parameters<typeof send>
  ) {
    if (args[0].startsWith('SELECT')) sent.push([args[0], (args[1] as unknown[] | undefined) ?? []]);
    return send.apply(this, args);
  } as typeof send);
  await records.awaitingReview({ claimedBy: ann, limit: 20, after: expected[10] });
  spy.mockRestore();
  expect(sent).toHaveLength(1);
  const runner = dataSource.createQueryRunner();
  await runner.query('SET enable_seqscan = off');
  const plan: { 'QUERY PLAN': string }[] = await runner.query(`EXPLAIN ${sent[0][0]}`, sent[0][1]);
  await runner.query('RESET enable_seqscan');
  await runner.release();
  const children: { name: string }[] = await dataSource.query(
    "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'judgment_assessments_awaiting_claim_key_index'::regclass",
  );
  const used = plan.map((line) => /using (\S+)/.exec(line['QUERY PLAN'])?.[1]).filter(Boolean);
  expect(used.length).toBeGreaterThanOrEqual(4);
  expect(used.every((name) => children.some((child) => child.name === name))).toBe(true);
});

it('refuses, naming it, a unique index the partitioned table could not keep', async () => {
  await recreateDatabase(DATABASE);
  dataSource = new DataSource({
    ...PG,
    database: DATABASE,
    entities: judgmentEntities,
    migrations: judgmentMigrations,
  });
  await dataSource.initialize();
  await dataSource.runMigrations();
  await dataSource.query('CREATE UNIQUE INDEX my_request_index ON judgment_assessments (request_id)');
  await dataSource.destroy();
  dataSource = await openDataSource();
  await expect(dataSource.runMigrations()).rejects.toThrow(/unique index my_request_index does not include created_at/);
  // Nothing changed: the migration ran in a transaction.
  const [{ partitioned }] = await dataSource.query(
    "SELECT count(*)::int AS partitioned FROM pg_partitioned_table WHERE partrelid = 'judgment_assessments'::regclass",
  );
  expect(partitioned).toBe(0);
});

it('does nothing on SQLite', async () => {
  dataSource = await new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: judgmentEntities,
    migrations: [...judgmentMigrations, ...judgmentMigrations.partitioned],
  }).initialize();
  await dataSource.runMigrations();
  await dataSource.query(
    "INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint) VALUES ('x', 'a', '[]', '0')",
  );
  expect(await dataSource.getRepository(AssessmentRecord).count()).toBe(1);
  await dataSource.undoLastMigration();
  expect(await dataSource.getRepository(AssessmentRecord).count()).toBe(1);
});
