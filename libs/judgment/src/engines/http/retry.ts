/** HTTP statuses worth another attempt: rate-limited (429) and overloaded (529). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 529]);

/** The longest wait before a retry, whatever the Engine asks for. */
export const MAX_RETRY_WAIT_MS = 60_000;

/** The retry headers of a 429/529 answer, as received. */
export interface RetryHeaders {
  readonly 'retry-after-ms'?: string;
  readonly 'retry-after'?: string;
}

/**
 * Milliseconds to wait before retry number `retry` (from 1): `retry-after-ms`, else `retry-after` in seconds, else
 * `retry-after` as an HTTP date, else 500 · 2^(retry − 1); clamped to 0..60 000.
 */
export function retryWait(headers: RetryHeaders, retry: number, now: number = Date.now()): number {
  const milliseconds = numeric(headers['retry-after-ms']);
  const seconds = numeric(headers['retry-after']);
  const date = headers['retry-after'] === undefined ? NaN : Date.parse(headers['retry-after']);
  const wait =
    milliseconds ?? (seconds !== null ? seconds * 1000 : !Number.isNaN(date) ? date - now : 500 * 2 ** (retry - 1));
  return Math.min(Math.max(wait, 0), MAX_RETRY_WAIT_MS);
}

function numeric(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}
