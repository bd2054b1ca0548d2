/**
 * The monthly range partitions of `judgment_assessments` on PostgreSQL (migration PartitionedAssessments1765800000000):
 * one partition per calendar month of `created_at` (UTC), named `judgment_assessments_pYYYYMM`, and a default
 * partition, `judgment_assessments_default`, that takes the rows of any month without one, so no write ever fails for
 * want of a partition. TypeORM cannot declare a partitioned table, so this is plain SQL over a `query()` function
 * (a QueryRunner in a migration, an EntityManager in a transaction).
 */

/** What runs the SQL: a QueryRunner, an EntityManager, a DataSource. */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

export const RECORD_TABLE = 'judgment_assessments';
export const DEFAULT_PARTITION = `${RECORD_TABLE}_default`;
/** Months created ahead of the current one, at startup and on every prune. */
export const MONTHS_AHEAD = 2;

const PARTITION_NAME = new RegExp(`^${RECORD_TABLE}_p(\\d{4})(\\d{2})$`);

/** The first instant (UTC) of the month `add` months after the month of `date`. */
export function monthStart(date: Date, add = 0): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + add, 1));
}

/** The partition of the month starting at `month`: `judgment_assessments_p202612`. */
export function partitionName(month: Date): string {
  return `${RECORD_TABLE}_p${month.getUTCFullYear()}${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The month (its first instant, UTC) a monthly partition holds, from its name; null for any other table. */
export function monthOfPartition(name: string): Date | null {
  const match = PARTITION_NAME.exec(name);
  return match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1)) : null;
}

/** Whether `judgment_assessments` (in the search path) is a partitioned table. */
export async function isPartitioned(runner: SqlRunner): Promise<boolean> {
  const rows = await runner.query('SELECT 1 FROM pg_partitioned_table WHERE partrelid = to_regclass($1)', [
    RECORD_TABLE,
  ]);
  return rows.length > 0;
}

/** The monthly partitions attached to the table, oldest first. */
export async function monthlyPartitions(runner: SqlRunner): Promise<{ name: string; month: Date }[]> {
  const rows: { name: string }[] = await runner.query(
    'SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1)',
    [RECORD_TABLE],
  );
  return rows
    .map(({ name }) => ({ name, month: monthOfPartition(name) }))
    .filter((partition): partition is { name: string; month: Date } => partition.month !== null)
    .sort((a, b) => a.month.getTime() - b.month.getTime());
}

/** How many rows wait in the default partition (those of months without a partition of their own). */
export async function defaultPartitionRows(runner: SqlRunner): Promise<number> {
  const [{ count }] = await runner.query(`SELECT count(*)::int AS count FROM "${DEFAULT_PARTITION}"`);
  return count;
}

/** Whether the partition of the month starting at `month` exists. */
export async function partitionExists(runner: SqlRunner, month: Date): Promise<boolean> {
  const [{ exists }] = await runner.query('SELECT to_regclass($1) IS NOT NULL AS exists', [partitionName(month)]);
  return exists;
}

/**
 * Creates the partition of the month starting at `month` unless it exists. Rows of that month already in the default
 * partition are moved into it (PostgreSQL refuses a new partition whose rows the default one holds): the default
 * partition is detached, the month's rows moved, and it is attached again. Run it in a transaction, so a concurrent
 * writer waits for the locks rather than finding the default partition detached. Resolves to the rows moved, or null
 * when the partition existed.
 */
export async function createMonthPartition(runner: SqlRunner, month: Date): Promise<number | null> {
  const name = partitionName(month);
  if (await partitionExists(runner, month)) return null;
  const from = month.toISOString();
  const to = monthStart(month, 1).toISOString();
  const bounds = `FOR VALUES FROM ('${from}') TO ('${to}')`;
  const [{ waiting }] = await runner.query(
    `SELECT count(*)::int AS waiting FROM "${DEFAULT_PARTITION}" WHERE created_at >= $1 AND created_at < $2`,
    [from, to],
  );
  if (waiting === 0) {
    await runner.query(`CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF "${RECORD_TABLE}" ${bounds}`);
    return 0;
  }
  await runner.query(`ALTER TABLE "${RECORD_TABLE}" DETACH PARTITION "${DEFAULT_PARTITION}"`);
  await runner.query(`CREATE TABLE "${name}" PARTITION OF "${RECORD_TABLE}" ${bounds}`);
  const where = 'WHERE created_at >= $1 AND created_at < $2';
  await runner.query(`INSERT INTO "${name}" SELECT * FROM "${DEFAULT_PARTITION}" ${where}`, [from, to]);
  await runner.query(`DELETE FROM "${DEFAULT_PARTITION}" ${where}`, [from, to]);
  await runner.query(`ALTER TABLE "${RECORD_TABLE}" ATTACH PARTITION "${DEFAULT_PARTITION}" DEFAULT`);
  return waiting;
}

/**
 * Detaches and drops a monthly partition; resolves to the rows it held. Run it in a transaction: the count and the
 * drop then see the same rows.
 */
export async function dropMonthPartition(runner: SqlRunner, name: string): Promise<number> {
  const [{ count }] = await runner.query(`SELECT count(*)::int AS count FROM "${name}"`);
  await runner.query(`ALTER TABLE "${RECORD_TABLE}" DETACH PARTITION "${name}"`);
  await runner.query(`DROP TABLE "${name}"`);
  return count;
}
