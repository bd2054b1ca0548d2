import { type MigrationInterface, type QueryRunner, Table, type TableColumnOptions } from 'typeorm';

/** The demo's own tables: refunds, tickets, posts and review notifications (PostgreSQL and SQLite). */
export class CreateSupportDeskTables1764500000000 implements MigrationInterface {
  name = 'CreateSupportDeskTables1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = ['sqlite', 'better-sqlite3'].includes(queryRunner.connection.options.type);
    const id: TableColumnOptions = {
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    };
    const string = (name: string, length = 255, options: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      ...options,
    });
    const text = (name: string): TableColumnOptions => ({ name, type: 'text' });
    const createdAt: TableColumnOptions = {
      name: 'created_at',
      type: sqlite ? 'datetime' : 'timestamp',
      default: sqlite ? "datetime('now')" : 'now()',
    };
    await queryRunner.createTable(
      new Table({
        name: 'refunds',
        columns: [
          id,
          string('item'),
          { name: 'amount_eur', type: 'real' },
          text('explanation'),
          { name: 'refunds_this_year', type: 'integer', default: 0 },
          string('locale', 16, { default: "'en'" }),
          string('status', 16, { default: "'pending'" }),
          createdAt,
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'tickets',
        columns: [
          id,
          string('subject'),
          text('body'),
          string('department', 32, { isNullable: true }),
          string('status', 16, { default: "'new'" }),
          createdAt,
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'posts',
        columns: [id, string('author'), text('body'), string('status', 16, { default: "'pending'" }), createdAt],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'review_notifications',
        columns: [
          id,
          { name: 'record_id', type: 'integer' },
          string('judgment'),
          string('outcome'),
          string('subject_type', 255, { isNullable: true }),
          string('subject_id', 255, { isNullable: true }),
          createdAt,
        ],
        indices: [{ name: 'review_notifications_record_unique', columnNames: ['record_id'], isUnique: true }],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['review_notifications', 'posts', 'tickets', 'refunds']) await queryRunner.dropTable(table);
  }
}
