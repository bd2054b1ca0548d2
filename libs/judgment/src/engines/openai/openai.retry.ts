import type { ResponseHeaders } from '../http/engine-http.client';
import type { RetryHeaders } from '../http/retry';

/**
 * The retry headers of a 429/503/529 Chat Completions answer: `retry-after-ms` and `retry-after` as sent; when neither
 * is, the later of `x-ratelimit-reset-requests` and `x-ratelimit-reset-tokens` (durations such as `1s`, `6m0s`,
 * `120ms`) as `retry-after-ms`.
 */
export function openAiRetryHeaders(headers: ResponseHeaders): RetryHeaders {
  const text = (name: string) => {
    const value = headers[name];
    return value === undefined || value === null ? undefined : String(value);
  };
  const given = { 'retry-after-ms': text('retry-after-ms'), 'retry-after': text('retry-after') };
  if (given['retry-after-ms'] !== undefined || given['retry-after'] !== undefined) return given;
  const resets = ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']
    .map((name) => durationMs(text(name)))
    .filter((ms): ms is number => ms !== null);
  return resets.length === 0 ? {} : { 'retry-after-ms': String(Math.max(...resets)) };
}

/** Milliseconds of a Go-style duration (`1h2m3.5s`, `20ms`, or bare seconds `2`); null when unreadable. */
export function durationMs(value: string | undefined): number | null {
  const text = value?.trim() ?? '';
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  if (!/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(text)) return null;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  let total = 0;
  for (const [, amount, , name] of text.matchAll(/(\d+(\.\d+)?)(ms|h|m|s)/g)) {
    total += Number(amount) * unit[name as keyof typeof unit];
  }
  return total;
}
