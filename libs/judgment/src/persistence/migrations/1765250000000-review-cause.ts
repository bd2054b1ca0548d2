import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'judgment_assessments';

/**
 * Adds `review_cause`: why a record is in Review (`band`, `drift`, `collapse`). Records already in Review get theirs
 * from what was written then: a `review_reason` starting with "Calibration drift:" came from the drift guard, any
 * other from a Review Outcome (whose reason is written now too).
 *
 * Plain `ALTER TABLE … ADD COLUMN` on both databases: on SQLite TypeORM's addColumn rebuilds the table from its own
 * picture of it, which loses the partial indexes the review queries read.
 */
export class ReviewCause1765250000000 implements MigrationInterface {
  name = 'ReviewCause1765250000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "${TABLE}" ADD COLUMN "review_cause" varchar(32)`);
    await queryRunner.query(
      `UPDATE "${TABLE}" SET "review_cause" = CASE WHEN "review_reason" LIKE 'Calibration drift:%' THEN 'drift' ` +
        `ELSE 'band' END WHERE "review_requested_at" IS NOT NULL`,
    );
    await queryRunner.query(
      `UPDATE "${TABLE}" SET "review_reason" = 'The Decision ' || COALESCE("decision", '') || ' decided ' || ` +
        `COALESCE("outcome", '') || ', one of its Review Outcomes.' ` +
        `WHERE "review_requested_at" IS NOT NULL AND "review_reason" IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "${TABLE}" DROP COLUMN "review_cause"`);
  }
}
