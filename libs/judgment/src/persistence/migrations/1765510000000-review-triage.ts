import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';
import { AWAITING_REVIEW } from '../record-indexes';

const TABLE = 'judgment_assessments';

/** The awaiting-Review indexes the queue's sorts and filters read, each ending in id for keyset pagination. */
export const TRIAGE_INDEXES: ReadonlyArray<{ name: string; columns: string[] }> = [
  { name: `${TABLE}_awaiting_deadline_index`, columns: ['review_deadline_at', 'id'] },
  { name: `${TABLE}_awaiting_margin_index`, columns: ['decision_margin', 'id'] },
  { name: `${TABLE}_awaiting_judgment_deadline_index`, columns: ['judgment', 'review_deadline_at', 'id'] },
  { name: `${TABLE}_awaiting_judgment_margin_index`, columns: ['judgment', 'decision_margin', 'id'] },
  { name: `${TABLE}_awaiting_cause_index`, columns: ['review_cause', 'id'] },
  { name: `${TABLE}_awaiting_cause_deadline_index`, columns: ['review_cause', 'review_deadline_at', 'id'] },
  { name: `${TABLE}_awaiting_cause_margin_index`, columns: ['review_cause', 'decision_margin', 'id'] },
];

/**
 * The review queue's triage (PostgreSQL and SQLite): adds `decision_margin` (the least |value − threshold| the
 * Decision compared, written with each decision; filled here from the stored trace for records awaiting Review on
 * PostgreSQL) and partial indexes over the records awaiting Review for the sorts by deadline and by least confidence
 * and the filters by Judgment and by reason, so each page is an index range read at any depth.
 *
 * Plain `ALTER TABLE … ADD COLUMN` on both databases (TypeORM's addColumn rebuilds a SQLite table from its own
 * picture of it, losing partial indexes); the table is read afresh before the indexes are made.
 */
export class ReviewTriage1765510000000 implements MigrationInterface {
  name = 'ReviewTriage1765510000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "${TABLE}" ADD COLUMN "decision_margin" double precision`);
    if (queryRunner.connection.options.type === 'postgres') {
      await queryRunner.query(
        `UPDATE "${TABLE}" SET "decision_margin" = (SELECT min(abs((c ->> 'margin')::double precision)) ` +
          `FROM json_array_elements("decision_trace" -> 'comparisons') AS c WHERE c ->> 'margin' IS NOT NULL) ` +
          `WHERE ${AWAITING_REVIEW} AND "decision_trace" IS NOT NULL`,
      );
    }
    await queryRunner.getTable(TABLE);
    for (const { name, columns } of TRIAGE_INDEXES) {
      await queryRunner.createIndex(TABLE, new TableIndex({ name, columnNames: columns, where: AWAITING_REVIEW }));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { name } of TRIAGE_INDEXES) await queryRunner.dropIndex(TABLE, name);
    await queryRunner.query(`ALTER TABLE "${TABLE}" DROP COLUMN "decision_margin"`);
  }
}
