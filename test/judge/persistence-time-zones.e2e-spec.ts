// Time on PostgreSQL (issue 17, item 11): the record's time columns are timestamptz, so an app whose time zone is not
// the database session's reads the times it wrote, and prune() keeps young records. The app runs in a child process
// because TZ must be set before Node starts; the migration that converts existing rows is tested here directly.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { judgmentMigrations } from 'nestjs-judgment';
import { DataSource } from 'typeorm';
import { PG, recreateDatabase } from '../support/postgres';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const TIME_COLUMNS = [
  'audit_requested_at',
  'audited_at',
  'claim_expires_at',
  'claimed_at',
  'created_at',
  'resolved_at',
  'review_deadline_at',
  'review_requested_at',
  'updated_at',
];

/** A DataSource on `database` whose session runs in `timeZone`. */
function openDatabase(database: string, timeZone: string, migrations: Function[] = []): Promise<DataSource> {
  return new DataSource({
    ...PG,
    database,
    migrations,
    extra: { options: `-c TimeZone=${timeZone}` },
  }).initialize();
}

it('an app in Asia/Tokyo on a database session in UTC reads the times it wrote, and prune() keeps a new record', async () => {
  const database = 'judgment_time_zone_app';
  await recreateDatabase(database);
  const { stdout } = await run(
    process.execPath,
    ['-r', './scripts/register.js', 'test/judge/time-zone.child.ts', database],
    { cwd: ROOT, env: { ...process.env, TZ: 'Asia/Tokyo' }, timeout: 60_000 },
  );
  const seen = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(seen.offsetMinutes).toBe(-540);
  expect(seen).toMatchObject({ pruned: 0, kept: true });
  const created = Date.parse(seen.createdAt);
  const requested = Date.parse(seen.reviewRequestedAt);
  // Both within a minute of the moment the child reported, not 9 hours apart.
  expect(Math.abs(requested - created)).toBeLessThan(60_000);
  expect(Math.abs(Date.parse(seen.now) - created)).toBeLessThan(60_000);
});

it('the migration turns every time column into timestamptz, reading old rows in the session time zone', async () => {
  const database = 'judgment_time_zone_migration';
  await recreateDatabase(database);
  const timestamptz = judgmentMigrations.findIndex((migration) => migration.name === 'Timestamptz1765000000000');
  const before = judgmentMigrations.slice(0, timestamptz);
  const old = await openDatabase(database, 'UTC', before);
  await old.runMigrations();
  // A row as the old columns held it: wall-clock times without a zone, written by an app and a database in UTC.
  await old.query(
    `INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint,
       review_requested_at, claim_expires_at, created_at, updated_at)
     VALUES ('old-row', repeat('a', 64), '[]', repeat('b', 64),
       '2026-03-01 12:00:05', '2026-03-01 12:15:00', '2026-03-01 12:00:00', '2026-03-01 12:00:05')`,
  );
  await old.destroy();

  const migrated = await openDatabase(database, 'UTC', judgmentMigrations);
  try {
    const ran = (await migrated.runMigrations()).map((migration) => migration.name);
    expect(ran).toEqual(judgmentMigrations.slice(timestamptz).map((migration) => migration.name));
    const types: { column_name: string; data_type: string }[] = await migrated.query(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_name = 'judgment_assessments' AND data_type LIKE 'timestamp%' ORDER BY column_name`,
    );
    expect(types).toEqual(
      TIME_COLUMNS.map((column) => ({ column_name: column, data_type: 'timestamp with time zone' })),
    );
    const [row] = await migrated.query(
      `SELECT created_at, review_requested_at, claim_expires_at, updated_at FROM judgment_assessments`,
    );
    expect(row.created_at.toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(row.review_requested_at.toISOString()).toBe('2026-03-01T12:00:05.000Z');
    expect(row.claim_expires_at.toISOString()).toBe('2026-03-01T12:15:00.000Z');

    // down() gives the session's wall-clock times back (the migrations after it undone first).
    for (let undo = ran.length; undo > 0; undo--) await migrated.undoLastMigration();
    const [reverted] = await migrated.query(
      `SELECT to_char(created_at, 'YYYY-MM-DD HH24:MI:SS') AS created_at, pg_typeof(created_at)::text AS type
       FROM judgment_assessments`,
    );
    expect(reverted).toEqual({ created_at: '2026-03-01 12:00:00', type: 'timestamp without time zone' });
  } finally {
    await migrated.destroy();
  }
});
