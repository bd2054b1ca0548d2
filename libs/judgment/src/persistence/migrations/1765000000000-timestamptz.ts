import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'judgment_assessments';

/** The time columns this migration converts: those that existed then (a later migration adds its own as timestamptz). */
const TIME_COLUMNS = [
  'review_requested_at',
  'resolved_at',
  'created_at',
  'updated_at',
  'audit_requested_at',
  'audited_at',
  'claim_expires_at',
  'review_deadline_at',
] as const;

/**
 * PostgreSQL: every time column of the records becomes `timestamptz`, so an instant is stored as an instant whatever
 * the time zones of the app and of the database session. SQLite has no such type (its `datetime` columns hold the UTC
 * text TypeORM writes): there this migration changes nothing.
 *
 * The old rows hold wall-clock times without a zone: the pg driver wrote the app's Dates as the local time of the Node
 * process (PostgreSQL drops the offset when it stores a `timestamp`), and the database wrote `created_at` and
 * `updated_at` (`now()`) as the local time of its session. The conversion reads them in the time zone of the session
 * that runs this migration (`current_setting('TimeZone')`: the server's, database's or role's default) — right when the
 * app and the database ran in the same zone, as the README asked. If they did not, set the session's TimeZone to the
 * app's zone before migrating and correct `created_at`/`updated_at` by the difference (see the README).
 */
export class Timestamptz1765000000000 implements MigrationInterface {
  name = 'Timestamptz1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await convert(queryRunner, 'timestamptz');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await convert(queryRunner, 'timestamp');
  }
}

/** Converts each time column, reading or writing wall-clock times in the session's time zone. */
async function convert(queryRunner: QueryRunner, type: 'timestamptz' | 'timestamp'): Promise<void> {
  if (queryRunner.connection.driver.options.type !== 'postgres') return;
  const changes = TIME_COLUMNS.map(
    (column) => `ALTER COLUMN "${column}" TYPE ${type} USING "${column}" AT TIME ZONE current_setting('TimeZone')`,
  );
  await queryRunner.query(`ALTER TABLE "${TABLE}" ${changes.join(', ')}`);
}
