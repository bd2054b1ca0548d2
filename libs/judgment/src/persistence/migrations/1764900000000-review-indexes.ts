import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';
import { AWAITING_REVIEW, UNASSESSED } from '../record-indexes';

const TABLE = 'judgment_assessments';

/**
 * Indexes for the lists apps page through, and none that no query uses (PostgreSQL and SQLite; both support partial
 * indexes). The awaiting-Review and Unassessed lists read partial indexes of just those rows, by id and by
 * (judgment, id), so page 1 and page 51 cost the same at a million records. Dropped, as no query of the package
 * reads them while every insert pays for them: questions_fingerprint, cached_from, resolver, and review (the
 * partial indexes replace it). Kept: judgment, subject (forSubject, latest) and created_at (prune).
 */
export class ReviewIndexes1764900000000 implements MigrationInterface {
  name = 'ReviewIndexes1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const name of DROPPED) await queryRunner.dropIndex(TABLE, `${TABLE}_${name}_index`);
    for (const index of PARTIAL) await queryRunner.createIndex(TABLE, new TableIndex(index));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const index of PARTIAL) await queryRunner.dropIndex(TABLE, index.name);
    for (const [name, columnNames] of Object.entries(DROPPED_COLUMNS)) {
      await queryRunner.createIndex(TABLE, new TableIndex({ name: `${TABLE}_${name}_index`, columnNames }));
    }
  }
}

const DROPPED_COLUMNS: Record<string, string[]> = {
  questions_fingerprint: ['questions_fingerprint'],
  cached_from: ['cached_from_id'],
  review: ['review_requested_at', 'resolved_at'],
  resolver: ['resolver_type', 'resolver_id'],
};
const DROPPED = Object.keys(DROPPED_COLUMNS);

const PARTIAL = [
  { name: `${TABLE}_awaiting_review_index`, columnNames: ['id'], where: AWAITING_REVIEW },
  { name: `${TABLE}_awaiting_review_judgment_index`, columnNames: ['judgment', 'id'], where: AWAITING_REVIEW },
  { name: `${TABLE}_unassessed_index`, columnNames: ['id'], where: UNASSESSED },
  { name: `${TABLE}_unassessed_judgment_index`, columnNames: ['judgment', 'id'], where: UNASSESSED },
];
