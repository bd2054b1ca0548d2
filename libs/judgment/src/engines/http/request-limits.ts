import { setTimeout as delay } from 'node:timers/promises';

/** The largest response body a driver reads when a connection sets no `maxResponseBytes`: 4 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** How a driver waits before a retry: resolves after `milliseconds`, rejects at once when `signal` aborts. */
export type Sleep = (milliseconds: number, signal?: AbortSignal) => Promise<unknown>;

/** The default Sleep: a timer the shutdown signal cancels. */
export const sleepUnlessAborted: Sleep = (milliseconds, signal) => delay(milliseconds, undefined, { signal });

/**
 * The signal of one attempt: aborts `seconds` after the request starts, however the server trickles its answer —
 * covering connect, headers and body (an idle timer such as axios's `timeout` is reset by every byte).
 */
export function attemptDeadline(seconds: number): AbortSignal {
  return AbortSignal.timeout(Math.max(1, Math.round(seconds * 1000)));
}

/** Whether an HTTP client's error is the abort of an attempt's deadline. */
export function isDeadlineAbort(error: unknown, deadline: AbortSignal): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return deadline.aborted && (code === 'ERR_CANCELED' || (error as Error | null)?.name === 'AbortError');
}

/** Whether an HTTP client's error is a body over its size cap (axios: ERR_BAD_RESPONSE, "maxContentLength"). */
export function isOversizedBody(error: unknown): boolean {
  return /maxContentLength size of -?\d+ exceeded/.test(String((error as Error | null)?.message ?? ''));
}
