import { NotFoundException } from '@nestjs/common';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { AssessmentRecords } from '../records/assessment-records.service';

/** The largest record id: the id column is a 32-bit integer. */
const MAX_RECORD_ID = 2 ** 31 - 1;

/** The record `:id` of a route names, or a 404 `not_found`. */
export async function findRecord(records: AssessmentRecords, id: number): Promise<AssessmentRecord> {
  // Above the id column's range nothing can exist (asking the database would overflow its integer).
  const record = id <= MAX_RECORD_ID ? await records.find(id) : null;
  if (!record) throw new NotFoundException(`Assessment record #${id} does not exist.`);
  return record;
}
