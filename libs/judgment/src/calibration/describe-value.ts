/** A value as calibration messages show it: a class by its name, anything else as JSON. */
export function describeValue(value: unknown): string {
  if (typeof value === 'function') return value.name || 'An anonymous class';
  return value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value));
}
