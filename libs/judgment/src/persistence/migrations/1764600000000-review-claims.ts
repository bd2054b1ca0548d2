import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

const TABLE = 'judgment_assessments';

/**
 * The review desk: a claim (a lease: holder and expiry) and a review deadline on each record, with the partial
 * indexes the awaiting-Review filters and the deadline sweep read (PostgreSQL and SQLite both support partial indexes).
 */
export class ReviewClaims1764600000000 implements MigrationInterface {
  name = 'ReviewClaims1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = ['sqlite', 'better-sqlite3'].includes(queryRunner.connection.options.type);
    const timestamp = sqlite ? 'datetime' : 'timestamp';
    await queryRunner.addColumns(TABLE, [
      new TableColumn({ name: 'claim_holder_type', type: 'varchar', length: '255', isNullable: true }),
      new TableColumn({ name: 'claim_holder_id', type: 'varchar', length: '255', isNullable: true }),
      new TableColumn({ name: 'claim_expires_at', type: timestamp, isNullable: true }),
      new TableColumn({ name: 'review_deadline_at', type: timestamp, isNullable: true }),
    ]);
    const awaiting = 'review_requested_at IS NOT NULL AND resolved_at IS NULL';
    // The awaiting-Review list in id order, filtered by claim (unclaimed or expired; claimed by one reviewer).
    await queryRunner.query(
      `CREATE INDEX ${TABLE}_awaiting_claim_index ON ${TABLE} (id, claim_expires_at) WHERE ${awaiting}`,
    );
    await queryRunner.query(
      `CREATE INDEX ${TABLE}_awaiting_holder_index ON ${TABLE} (claim_holder_type, claim_holder_id, id) ` +
        `WHERE ${awaiting}`,
    );
    // The deadline sweep: records still unresolved whose deadline passed, earliest first.
    await queryRunner.query(
      `CREATE INDEX ${TABLE}_review_deadline_index ON ${TABLE} (review_deadline_at) ` +
        'WHERE review_deadline_at IS NOT NULL AND resolved_at IS NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['review_deadline', 'awaiting_holder', 'awaiting_claim']) {
      await queryRunner.query(`DROP INDEX ${TABLE}_${name}_index`);
    }
    for (const column of ['review_deadline_at', 'claim_expires_at', 'claim_holder_id', 'claim_holder_type']) {
      await queryRunner.dropColumn(TABLE, column);
    }
  }
}
