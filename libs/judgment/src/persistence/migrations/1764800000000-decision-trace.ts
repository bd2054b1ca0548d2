import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

const TABLE = 'judgment_assessments';

/** Adds `decision_trace`: how the last recorded Outcome was reached (null for records decided before it existed). */
export class DecisionTrace1764800000000 implements MigrationInterface {
  name = 'DecisionTrace1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(TABLE, new TableColumn({ name: 'decision_trace', type: 'json', isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn(TABLE, 'decision_trace');
  }
}
