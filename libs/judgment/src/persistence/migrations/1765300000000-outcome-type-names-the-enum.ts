import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'judgment_assessments';

/**
 * `outcome_type` names the Outcome enum a Decision declares (`@Decision({ outcomeType })`), never the Decision: an
 * enum has no name at run time, so a Decision that declares none now records NULL. Rows written before held the
 * Decision's name there (the old default, already in `decision`); they are cleared, and rows that name an enum stay.
 * Reverting writes the Decision's name back where outcome_type is NULL on a decided row.
 */
export class OutcomeTypeNamesTheEnum1765300000000 implements MigrationInterface {
  name = 'OutcomeTypeNamesTheEnum1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE "${TABLE}" SET "outcome_type" = NULL WHERE "outcome_type" = "decision"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "${TABLE}" SET "outcome_type" = "decision" WHERE "outcome_type" IS NULL AND "decision" IS NOT NULL`,
    );
  }
}
