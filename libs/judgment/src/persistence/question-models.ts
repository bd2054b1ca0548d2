/**
 * The model of each Question a record keeps in `provenance_details.questionModels` (the RecordWriter writes it when
 * the Engine reported a model per Question); empty when absent or malformed.
 */
export function questionModelsOf(details: Readonly<Record<string, unknown>>): Record<string, string> {
  const models = details.questionModels;
  if (models === null || typeof models !== 'object' || Array.isArray(models)) return {};
  return Object.fromEntries(
    Object.entries(models as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}
