import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';
import { AWAITING_REVIEW, DEADLINE_PENDING } from '../record-indexes';

const TABLE = 'judgment_assessments';
const UNUSED_NAME = `${TABLE}_awaiting_claim_index`;
const UNUSED = new TableIndex({
  name: UNUSED_NAME,
  columnNames: ['id', 'claim_expires_at'],
  where: AWAITING_REVIEW,
});
/** The review desk's indexes that queries read: claimed-by-one-reviewer pages, and the deadline sweep. */
const DESK = [
  new TableIndex({
    name: `${TABLE}_awaiting_holder_index`,
    columnNames: ['claim_holder_type', 'claim_holder_id', 'id'],
    where: AWAITING_REVIEW,
  }),
  new TableIndex({
    name: `${TABLE}_review_deadline_index`,
    columnNames: ['review_deadline_at'],
    where: DEADLINE_PENDING,
  }),
];

/**
 * The review desk's indexes, settled (PostgreSQL and SQLite).
 *
 * Drops the awaiting-claim index (id, claim_expires_at): no query reads it. The unclaimed filter pages through the
 * awaiting-Review index by id and checks the lease on the row it reads anyway (the list selects whole rows), so the
 * planner never chose it, while every entry into Review, claim, renewal and release wrote to it.
 *
 * Makes the holder and deadline indexes where they are missing: on SQLite, running the migrations in one go lost
 * them, as the next migration's added column rebuilds the table from TypeORM's stale picture of it (they had been
 * made by plain SQL). The table is read afresh first for the same reason.
 */
export class ReviewDeskIndexes1765100000000 implements MigrationInterface {
  name = 'ReviewDeskIndexes1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const names = await indexNames(queryRunner);
    if (names.has(UNUSED_NAME)) await queryRunner.dropIndex(TABLE, UNUSED_NAME);
    for (const index of DESK) if (!names.has(String(index.name))) await queryRunner.createIndex(TABLE, index.clone());
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (!(await indexNames(queryRunner)).has(UNUSED_NAME)) await queryRunner.createIndex(TABLE, UNUSED.clone());
  }
}

/** The table's index names as the database has them now (and TypeORM's cached table refreshed). */
async function indexNames(queryRunner: QueryRunner): Promise<Set<string>> {
  const table = await queryRunner.getTable(TABLE);
  return new Set((table?.indices ?? []).map((index) => String(index.name)));
}
