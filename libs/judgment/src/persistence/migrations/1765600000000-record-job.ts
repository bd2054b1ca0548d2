import type { MigrationInterface, QueryRunner } from 'typeorm';
import { WRITTEN_BY_JOB } from '../record-indexes';

const TABLE = 'judgment_assessments';
const JOB_INDEX = `${TABLE}_job_index`;

/**
 * Adds `job_id`: the queued assess job that wrote a record (null for records written inline, and for those written
 * before). A job run again after its worker died finds the answer its first run recorded by this column (a partial
 * index over the records that have one) and decides that record, instead of asking the Engine a second time. On a
 * partitioned table the column and the index reach every partition, and those created later.
 *
 * Plain `ALTER TABLE … ADD COLUMN` on both databases: on SQLite TypeORM's addColumn rebuilds the table from its own
 * picture of it, which loses the partial indexes the review queries read.
 */
export class RecordJob1765600000000 implements MigrationInterface {
  name = 'RecordJob1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "${TABLE}" ADD COLUMN "job_id" varchar(255)`);
    await queryRunner.query(`CREATE INDEX "${JOB_INDEX}" ON "${TABLE}" ("job_id") WHERE ${WRITTEN_BY_JOB}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "${JOB_INDEX}"`);
    await queryRunner.query(`ALTER TABLE "${TABLE}" DROP COLUMN "job_id"`);
  }
}
