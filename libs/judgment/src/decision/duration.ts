import ms from 'ms';

/**
 * A duration given as a string with a unit (`'90s'`, `'15m'`, `'48h'`, `'7d'`, `'2 days'`; parsed by `ms`) or a number
 * of milliseconds, in milliseconds; or why it is refused: not parseable, a unit missing, not positive, or outside
 * `bounds` (whose `text` states them to the reader).
 */
export function parseDuration(
  value: unknown,
  bounds: { readonly min: number; readonly max: number; readonly text: string },
): { ms: number } | { problem: string } {
  let parsed: number | undefined;
  if (typeof value === 'number') parsed = value;
  else if (typeof value === 'string' && /[a-z]\s*$/i.test(value.trim())) parsed = ms(value.trim() as ms.StringValue);
  else if (typeof value === 'string') {
    return { problem: `${JSON.stringify(value)} has no unit: write it like '90s', '15m', '48h' or '7d'` };
  } else return { problem: `${describe(value)} is not a duration: give a string like '15m' or milliseconds` };
  if (parsed === undefined || !Number.isFinite(parsed)) {
    return { problem: `${JSON.stringify(value)} cannot be parsed as a duration: write it like '90s', '15m' or '48h'` };
  }
  if (parsed < bounds.min || parsed > bounds.max) {
    return { problem: `${JSON.stringify(value)} is outside ${bounds.text}` };
  }
  return { ms: Math.round(parsed) };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
