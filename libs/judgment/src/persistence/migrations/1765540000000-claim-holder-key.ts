import type { MigrationInterface, QueryRunner } from 'typeorm';
import { AWAITING_REVIEW, claimHolderKey } from '../record-indexes';

const TABLE = 'judgment_assessments';
export const CLAIM_KEY_INDEX = `${TABLE}_awaiting_claim_key_index`;

/**
 * PostgreSQL only: the records one reviewer holds, read by one key, `(ARRAY[claim_holder_type, claim_holder_id], id)`,
 * over the records awaiting Review. The `claimedBy` filter compares that key with one equality, which PostgreSQL has
 * no statistics for, so it no longer multiplies the shares of the holder's type, of the holder and of live leases in
 * the whole table as if they were independent (on a partitioned table that made it expect a row a partition, append
 * every partition's matches and sort them: 95 ms at 10,000,000 records; now each partition's index is read in id
 * order and merged). On a partitioned table the index is made on every partition, and on those created later.
 * The (claim_holder_type, claim_holder_id, id) index stays: SQLite's `claimedBy` reads it. SQLite: nothing to do.
 */
export class ClaimHolderKey1765540000000 implements MigrationInterface {
  name = 'ClaimHolderKey1765540000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'postgres') return;
    await queryRunner.query(
      `CREATE INDEX "${CLAIM_KEY_INDEX}" ON "${TABLE}" ((${claimHolderKey()}), id) WHERE ${AWAITING_REVIEW}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'postgres') return;
    await queryRunner.query(`DROP INDEX "${CLAIM_KEY_INDEX}"`);
  }
}
