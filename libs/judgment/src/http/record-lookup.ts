import { UnknownRecord } from '../errors';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { AssessmentRecords } from '../records/assessment-records.service';

/** The record `:id` of a route names, or UnknownRecord (a 404 `not_found`), ids past the id column's range included. */
export async function findRecord(records: AssessmentRecords, id: number): Promise<AssessmentRecord> {
  const record = await records.find(id);
  if (!record) throw new UnknownRecord(id);
  return record;
}
