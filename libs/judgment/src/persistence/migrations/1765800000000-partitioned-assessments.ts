import type { MigrationInterface, QueryRunner } from 'typeorm';
import { InvalidConfiguration } from '../../errors';
import {
  DEFAULT_PARTITION,
  MONTHS_AHEAD,
  RECORD_TABLE,
  type SqlRunner,
  createMonthPartition,
  isPartitioned,
  monthStart,
} from '../record-partitions';

const UNPARTITIONED = `${RECORD_TABLE}_unpartitioned`;
const PARTITIONED = `${RECORD_TABLE}_partitioned`;

/**
 * PostgreSQL only (opt-in: `judgmentMigrations.partitioned`): rebuilds `judgment_assessments` as a table
 * range-partitioned by `created_at`, one partition per month (UTC) from the oldest record's month to two months
 * ahead, and a default partition. Every row is copied with its id, the id sequence is kept, and every index is
 * created again by its definition (the review lists' partial indexes, and any of your own). The primary key becomes
 * `(id, created_at)`: PostgreSQL requires the partition key in every unique constraint, so the migration refuses
 * (naming it) another unique index, or a foreign key that references the table. It locks the table while it copies:
 * plan a maintenance window for a large one. `down` rebuilds the plain table the same way (primary key `id`).
 * SQLite: nothing to do.
 */
export class PartitionedAssessments1765800000000 implements MigrationInterface {
  name = 'PartitionedAssessments1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'postgres' || (await isPartitioned(queryRunner))) return;
    const shape = await tableShape(queryRunner, true);
    await queryRunner.query(`LOCK TABLE "${RECORD_TABLE}" IN ACCESS EXCLUSIVE MODE`);
    await setAside(queryRunner, shape, UNPARTITIONED);
    await queryRunner.query(
      `CREATE TABLE "${RECORD_TABLE}" (LIKE "${UNPARTITIONED}" INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS)` +
        ' PARTITION BY RANGE (created_at)',
    );
    await queryRunner.query(
      `ALTER TABLE "${RECORD_TABLE}" ADD CONSTRAINT "${shape.primaryKey}" PRIMARY KEY (id, created_at)`,
    );
    await queryRunner.query(`CREATE TABLE "${DEFAULT_PARTITION}" PARTITION OF "${RECORD_TABLE}" DEFAULT`);
    const [{ oldest }] = await queryRunner.query(`SELECT min(created_at) AS oldest FROM "${UNPARTITIONED}"`);
    const last = monthStart(new Date(), MONTHS_AHEAD);
    for (let month = monthStart(oldest ?? new Date()); month <= last; month = monthStart(month, 1)) {
      await createMonthPartition(queryRunner, month);
    }
    await moveRows(queryRunner, shape, UNPARTITIONED);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'postgres' || !(await isPartitioned(queryRunner))) return;
    const shape = await tableShape(queryRunner, false);
    await queryRunner.query(`LOCK TABLE "${RECORD_TABLE}" IN ACCESS EXCLUSIVE MODE`);
    await setAside(queryRunner, shape, PARTITIONED);
    await queryRunner.query(
      `CREATE TABLE "${RECORD_TABLE}" (LIKE "${PARTITIONED}" INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS)`,
    );
    await moveRows(queryRunner, shape, PARTITIONED);
    await queryRunner.query(`ALTER TABLE "${RECORD_TABLE}" ADD CONSTRAINT "${shape.primaryKey}" PRIMARY KEY (id)`);
  }
}

/** What is rebuilt of the table: its primary key's name, its id sequence and its other indexes' definitions. */
interface TableShape {
  readonly primaryKey: string;
  readonly sequence: string | null;
  readonly indexes: readonly string[];
}

/**
 * Reads the table's shape, and refuses what a partitioned table cannot have: a unique index other than the primary
 * key, and a foreign key referencing the table (both would need `created_at` in the key).
 */
async function tableShape(runner: SqlRunner, partitioning: boolean): Promise<TableShape> {
  const [primary] = await runner.query(
    "SELECT conname AS name FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'p'",
    [RECORD_TABLE],
  );
  const indexes: { name: string; definition: string; unique: boolean; primary: boolean }[] = await runner.query(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition, i.indisunique AS unique,
            i.indisprimary AS primary
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = to_regclass($1)`,
    [RECORD_TABLE],
  );
  if (partitioning) {
    const unique = indexes.find((index) => index.unique && !index.primary);
    if (unique) {
      throw new InvalidConfiguration(
        `Cannot partition ${RECORD_TABLE}: its unique index ${unique.name} does not include created_at, which ` +
          'PostgreSQL requires of every unique index of a partitioned table. Drop it, or add created_at to it, then ' +
          'run the migration again.',
      );
    }
    const [reference] = await runner.query(
      "SELECT conname AS name, conrelid::regclass::text AS owner FROM pg_constraint WHERE confrelid = to_regclass($1) AND contype = 'f'",
      [RECORD_TABLE],
    );
    if (reference) {
      throw new InvalidConfiguration(
        `Cannot partition ${RECORD_TABLE}: the foreign key ${reference.name} of ${reference.owner} references it, ` +
          'and a partitioned table can only be referenced by a key that includes created_at. Drop the foreign key ' +
          '(keep the column), then run the migration again.',
      );
    }
  }
  const [{ sequence }] = await runner.query('SELECT pg_get_serial_sequence($1, $2) AS sequence', [RECORD_TABLE, 'id']);
  return {
    primaryKey: primary?.name ?? `${RECORD_TABLE}_pkey`,
    sequence,
    indexes: indexes.filter((index) => !index.primary).map((index) => index.definition),
  };
}

/** Renames the table to `aside` and drops its indexes and primary key (recreated on the new table after the copy). */
async function setAside(runner: SqlRunner, shape: TableShape, aside: string): Promise<void> {
  await runner.query(`ALTER TABLE "${RECORD_TABLE}" RENAME TO "${aside}"`);
  await runner.query(`ALTER TABLE "${aside}" DROP CONSTRAINT "${shape.primaryKey}"`);
  for (const definition of shape.indexes) {
    const name = /^CREATE (?:UNIQUE )?INDEX (\S+) ON /.exec(definition)?.[1];
    if (name) await runner.query(`DROP INDEX ${name}`);
  }
}

/**
 * Copies every row (ids kept) from the table set aside into the new one, hands the id sequence over, drops the old
 * table (with its partitions) and creates the indexes again by their definitions.
 */
async function moveRows(runner: SqlRunner, shape: TableShape, aside: string): Promise<void> {
  await runner.query(`INSERT INTO "${RECORD_TABLE}" SELECT * FROM "${aside}"`);
  if (shape.sequence) await runner.query(`ALTER SEQUENCE ${shape.sequence} OWNED BY "${RECORD_TABLE}".id`);
  await runner.query(`DROP TABLE "${aside}" CASCADE`);
  for (const definition of shape.indexes) await runner.query(definition);
  await runner.query(`ANALYZE "${RECORD_TABLE}"`);
}
