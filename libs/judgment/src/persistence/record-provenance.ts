import { Provenance } from '../assessment/provenance';
import type { AssessmentRecord } from './assessment-record.entity';
import { questionModelsOf } from './question-models';

/**
 * The Provenance of a record's answers (engine, model, request id, details, each Question's model); null when the
 * record has no engine or model.
 */
export function recordProvenance(record: AssessmentRecord): Provenance | null {
  const { engine, model } = record;
  if (engine === null || model === null) return null;
  const details = record.provenanceDetails ?? {};
  return new Provenance(engine, model, record.requestId, details, questionModelsOf(details));
}
