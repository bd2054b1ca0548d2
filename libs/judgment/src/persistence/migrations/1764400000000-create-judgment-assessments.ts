import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

const TABLE = 'judgment_assessments';

/** Creates `judgment_assessments` (portable: PostgreSQL, SQLite and the other TypeORM drivers). */
export class CreateJudgmentAssessments1764400000000 implements MigrationInterface {
  name = 'CreateJudgmentAssessments1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = ['sqlite', 'better-sqlite3'].includes(queryRunner.connection.options.type);
    const timestamp = sqlite ? 'datetime' : 'timestamp';
    const string = (name: string, nullable = true) => ({ name, type: 'varchar', length: '255', isNullable: nullable });
    await queryRunner.createTable(
      new Table({
        name: TABLE,
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          string('judgment', false),
          string('subject_type'),
          string('subject_id'),
          { name: 'evidence', type: 'json', isNullable: true },
          { name: 'evidence_fingerprint', type: 'character', length: '64' },
          { name: 'untrusted_paths', type: 'json' },
          string('language'),
          { name: 'questions_fingerprint', type: 'character', length: '64' },
          { name: 'answers', type: 'json', isNullable: true },
          string('engine'),
          string('model'),
          string('request_id'),
          { name: 'provenance_details', type: 'json', isNullable: true },
          string('failure_type'),
          { name: 'failure_message', type: 'text', isNullable: true },
          { name: 'cached_from_id', type: 'integer', isNullable: true },
          string('decision'),
          string('decision_version'),
          string('outcome_type'),
          string('outcome'),
          { name: 'review_requested_at', type: timestamp, isNullable: true },
          string('resolution'),
          string('resolver_type'),
          string('resolver_id'),
          { name: 'resolved_at', type: timestamp, isNullable: true },
          { name: 'created_at', type: timestamp, default: sqlite ? "datetime('now')" : 'now()' },
          { name: 'updated_at', type: timestamp, default: sqlite ? "datetime('now')" : 'now()' },
        ],
      }),
    );
    const index = (name: string, columnNames: string[]) =>
      queryRunner.createIndex(TABLE, new TableIndex({ name: `${TABLE}_${name}_index`, columnNames }));
    await index('judgment', ['judgment']);
    await index('subject', ['subject_type', 'subject_id']);
    await index('questions_fingerprint', ['questions_fingerprint']);
    await index('cached_from', ['cached_from_id']);
    await index('review', ['review_requested_at', 'resolved_at']);
    await index('resolver', ['resolver_type', 'resolver_id']);
    await index('created_at', ['created_at']);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
