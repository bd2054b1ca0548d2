import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'judgment_assessments';

/**
 * Adds what a record's rounds cost: `cost` (in the connection's currency, to 12 decimal places), `cost_currency`, and
 * `cost_basis` (the token counts, requests and price it was reached from, or why there is none). All three stay null
 * on records written before: their cost was never known, and none is made up.
 *
 * Plain `ALTER TABLE … ADD COLUMN` on both databases: on SQLite TypeORM's addColumn rebuilds the table from its own
 * picture of it, which loses the partial indexes the review queries read.
 */
export class RoundCost1765520000000 implements MigrationInterface {
  name = 'RoundCost1765520000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = ['sqlite', 'better-sqlite3'].includes(queryRunner.connection.options.type);
    await queryRunner.query(`ALTER TABLE "${TABLE}" ADD COLUMN "cost" numeric(24,12)`);
    await queryRunner.query(`ALTER TABLE "${TABLE}" ADD COLUMN "cost_currency" varchar(16)`);
    await queryRunner.query(`ALTER TABLE "${TABLE}" ADD COLUMN "cost_basis" ${sqlite ? 'text' : 'json'}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const column of ['cost_basis', 'cost_currency', 'cost']) {
      await queryRunner.query(`ALTER TABLE "${TABLE}" DROP COLUMN "${column}"`);
    }
  }
}
