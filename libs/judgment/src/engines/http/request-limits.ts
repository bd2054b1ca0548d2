import { setTimeout as delay } from 'node:timers/promises';

/** How a driver waits before a retry: resolves after `milliseconds`, rejects at once when `signal` aborts. */
export type Sleep = (milliseconds: number, signal?: AbortSignal) => Promise<unknown>;

/** The default Sleep: a timer the shutdown signal cancels. */
export const sleepUnlessAborted: Sleep = (milliseconds, signal) => delay(milliseconds, undefined, { signal });

/**
 * The signal of one attempt: aborts `seconds` after the request starts, however the server trickles its answer —
 * covering connect, headers and body (an idle timer would be reset by every byte).
 */
export function attemptDeadline(seconds: number): AbortSignal {
  return AbortSignal.timeout(deadlineMs(seconds));
}

/** An attempt's `timeout` in whole milliseconds, at least 1. */
export function deadlineMs(seconds: number): number {
  return Math.max(1, Math.round(seconds * 1000));
}
