import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'judgment_assessments';

/**
 * Adds `claimed_at`: when the claim holder took the claim, so the time a reviewer spent on a case (claim to
 * Resolution) is kept with the Resolution. `timestamptz` on PostgreSQL, `datetime` on SQLite; null on existing rows.
 *
 * Plain `ALTER TABLE … ADD COLUMN` on both databases (TypeORM's addColumn rebuilds a SQLite table from its own
 * picture of it, which loses the partial indexes the review queries read).
 */
export class ClaimedAt1765500000000 implements MigrationInterface {
  name = 'ClaimedAt1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.driver.options.type === 'postgres';
    await queryRunner.query(`ALTER TABLE "${TABLE}" ADD COLUMN "claimed_at" ${postgres ? 'timestamptz' : 'datetime'}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "${TABLE}" DROP COLUMN "claimed_at"`);
  }
}
