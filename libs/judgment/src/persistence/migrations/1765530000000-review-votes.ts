import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'judgment_review_votes';

/**
 * N-of-M review: `judgment_review_votes` holds each reviewer's independent Resolution (vote) on a record whose Decision
 * requires several (`review: { reviewers }`), one row per record and reviewer (the unique constraint refuses a second
 * vote from the same reviewer, even from two requests at once), with the Judgment's name for the agreement figures.
 * No foreign key: `judgment_assessments` may be partitioned, where a key on `id` alone cannot be referenced.
 */
export class ReviewVotes1765530000000 implements MigrationInterface {
  name = 'ReviewVotes1765530000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = ['sqlite', 'better-sqlite3'].includes(queryRunner.connection.options.type);
    await queryRunner.query(
      `CREATE TABLE "${TABLE}" (` +
        (sqlite ? '"id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, ' : '"id" serial PRIMARY KEY, ') +
        '"record_id" integer NOT NULL, "judgment" varchar(255) NOT NULL, ' +
        '"reviewer_type" varchar(255) NOT NULL, "reviewer_id" varchar(255) NOT NULL, "outcome" varchar(255) NOT NULL, ' +
        (sqlite
          ? `"created_at" datetime NOT NULL DEFAULT (datetime('now')), `
          : '"created_at" timestamptz NOT NULL DEFAULT now(), ') +
        `CONSTRAINT "${TABLE}_record_reviewer" UNIQUE ("record_id", "reviewer_type", "reviewer_id"))`,
    );
    // The agreement figures read a Judgment's votes, record by record.
    await queryRunner.query(`CREATE INDEX "${TABLE}_judgment_index" ON "${TABLE}" ("judgment", "record_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "${TABLE}"`);
  }
}
