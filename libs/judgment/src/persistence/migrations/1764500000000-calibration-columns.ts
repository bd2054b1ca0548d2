import { type MigrationInterface, type QueryRunner, TableColumn, TableIndex } from 'typeorm';

const TABLE = 'judgment_assessments';

/**
 * Adds what production calibration records with a decision (portable: PostgreSQL and SQLite): the thresholds the
 * Decision decided with, why a record went to Review when its Outcome was automatic (a calibration drift), and the
 * audit of an automatic Outcome (requested, resolved by whom, with which Outcome).
 */
export class CalibrationColumns1764500000000 implements MigrationInterface {
  name = 'CalibrationColumns1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = ['sqlite', 'better-sqlite3'].includes(queryRunner.connection.options.type);
    const timestamp = sqlite ? 'datetime' : 'timestamp';
    const string = (name: string) => new TableColumn({ name, type: 'varchar', length: '255', isNullable: true });
    await queryRunner.addColumns(TABLE, [
      new TableColumn({ name: 'decision_thresholds', type: 'json', isNullable: true }),
      new TableColumn({ name: 'review_reason', type: 'text', isNullable: true }),
      new TableColumn({ name: 'audit_requested_at', type: timestamp, isNullable: true }),
      string('audit_resolution'),
      string('audit_resolver_type'),
      string('audit_resolver_id'),
      new TableColumn({ name: 'audited_at', type: timestamp, isNullable: true }),
    ]);
    await queryRunner.createIndex(
      TABLE,
      new TableIndex({ name: `${TABLE}_audit_index`, columnNames: ['audit_requested_at', 'audited_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(TABLE, `${TABLE}_audit_index`);
    for (const column of [
      'audited_at',
      'audit_resolver_id',
      'audit_resolver_type',
      'audit_resolution',
      'audit_requested_at',
      'review_reason',
      'decision_thresholds',
    ]) {
      await queryRunner.dropColumn(TABLE, column);
    }
  }
}
