import { InvalidRateLimit } from '../../errors';
import { DEFAULT_LIMIT_WINDOW_SECONDS } from '../../judgment.defaults';
import type { ConnectionLimits, EngineConnectionOptions, ResolvedLimiter } from '../../judgment.options';

/** A connection's limits, checked: what each window of `windowSeconds` allows (null: no such limit). */
export interface ResolvedLimits {
  readonly requestsPerMinute: number | null;
  readonly tokensPerMinute: number | null;
  readonly windowSeconds: number;
  /** Requests allowed per window. */
  readonly requestsPerWindow: number | null;
  /** Input tokens allowed per window. */
  readonly tokensPerWindow: number | null;
  /** Requests the account's bucket holds at once (`limits.burst`); null: the account's bucket is not declared. */
  readonly burst: number | null;
}

/** BullMQ's global rate limit of a connection's assess queue: `max` jobs started per `durationMs`. */
export interface QueueRateLimit {
  readonly max: number;
  readonly durationMs: number;
}

/**
 * The global rate limit of a connection's assess queue (null without a request limit).
 *
 * With a declared `burst`, the account refills a bucket of `burst` requests continuously (a token bucket, as most
 * Engine APIs): the queue then starts at most ⌊burst / 2⌋ jobs per the time the account takes to refill them. Fixed
 * windows let two windows' worth through back to back, so half the bucket per window is what never outruns it,
 * whatever the timing; at saturation each window's jobs start together, when the bucket is full again.
 *
 * Without `burst`, the connection's window plus a margin (2 %, at least 200 ms): the Engine starts its window when our
 * first request arrives, a network trip after we counted it; a window exactly as long as the Engine's would, after a
 * few windows, send a burst just before the Engine's window ends.
 */
export function queueRateLimit(limits: ResolvedLimits): QueueRateLimit | null {
  if (limits.requestsPerMinute === null || limits.requestsPerWindow === null) return null;
  if (limits.burst !== null) {
    const max = Math.max(1, Math.floor(limits.burst / 2));
    return { max, durationMs: Math.ceil((max * 60_000) / limits.requestsPerMinute) };
  }
  return { max: limits.requestsPerWindow, durationMs: queueWindowMs(limits) };
}

/**
 * Milliseconds of the assess queue's rate-limit window: the connection's window plus a margin (2 %, at least 200 ms).
 * The Engine starts its window when our first request arrives, a network trip after we counted it; a window exactly
 * as long as the Engine's would, after a few windows, send a burst just before the Engine's window ends.
 */
export function queueWindowMs(limits: ResolvedLimits): number {
  const windowMs = limits.windowSeconds * 1000;
  return windowMs + Math.max(200, Math.round(windowMs * 0.02));
}

/** The resolved `limiter` options, with the Redis client the limits are counted on (null: this process only). */
export interface LimitSharing extends Omit<ResolvedLimiter, 'redis'> {
  readonly redis: object | null;
}

/**
 * Reads `engines.<name>.limits`: null when the connection has none. Throws InvalidRateLimit naming the option when a
 * limit is not a positive whole number, or the window is too short to allow even one request.
 */
export function connectionLimits(name: string, config: EngineConnectionOptions): ResolvedLimits | null {
  const limits = config.limits;
  if (limits === undefined || limits === null) return null;
  const option = `engines.${name}.limits`;
  if (typeof limits !== 'object' || Array.isArray(limits)) {
    throw new InvalidRateLimit(
      `${option} must be an object such as { requestsPerMinute: 1200, tokensPerMinute: 400000 }; got ${JSON.stringify(limits)}.`,
    );
  }
  const known = new Set<string>(['requestsPerMinute', 'tokensPerMinute', 'windowSeconds', 'burst']);
  for (const key of Object.keys(limits)) {
    if (!known.has(key)) {
      throw new InvalidRateLimit(
        `${option}.${key} is not a limit: use requestsPerMinute, tokensPerMinute, windowSeconds and burst.`,
      );
    }
  }
  const requestsPerMinute = positiveInteger(limits, 'requestsPerMinute', option);
  const burst = positiveInteger(limits, 'burst', option);
  if (burst !== null && requestsPerMinute === null) {
    throw new InvalidRateLimit(
      `${option}.burst is the size of the account's request bucket, which refills at requestsPerMinute: give ` +
        `${option}.requestsPerMinute too, or remove burst.`,
    );
  }
  const tokensPerMinute = positiveInteger(limits, 'tokensPerMinute', option);
  const windowSeconds = positiveInteger(limits, 'windowSeconds', option) ?? DEFAULT_LIMIT_WINDOW_SECONDS;
  const perWindow = (perMinute: number | null, key: string) => {
    if (perMinute === null) return null;
    const allowed = Math.floor((perMinute * windowSeconds) / 60);
    if (allowed < 1) {
      throw new InvalidRateLimit(
        `${option}.${key} is ${perMinute}, which allows less than one per window of ${windowSeconds} s: raise ` +
          `${option}.windowSeconds, or the limit.`,
      );
    }
    return allowed;
  };
  return {
    requestsPerMinute,
    tokensPerMinute,
    windowSeconds,
    requestsPerWindow: perWindow(requestsPerMinute, 'requestsPerMinute'),
    tokensPerWindow: perWindow(tokensPerMinute, 'tokensPerMinute'),
    burst,
  };
}

function positiveInteger(limits: ConnectionLimits, key: keyof ConnectionLimits, option: string): number | null {
  const value: unknown = limits[key];
  if (value === undefined || value === null) return null;
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
    throw new InvalidRateLimit(
      `${option}.${key} must be a positive whole number; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}.`,
    );
  }
  return number;
}

/**
 * A per-minute limit from the environment, which must carry its unit: `1200/min` or `20/s` (per second, times 60).
 * Throws InvalidRateLimit naming the variable when the unit is missing or the number is not positive and whole.
 */
export function perMinuteFromEnv(variable: string, raw: string): number {
  const match = /^\s*(\d+)\s*\/\s*(s|sec|second|m|min|minute)\s*$/i.exec(raw);
  const count = match ? Number(match[1]) : NaN;
  if (!match || count < 1) {
    throw new InvalidRateLimit(
      `${variable} must be a positive whole number with its time unit, such as 1200/min or 20/s; got "${raw}".`,
    );
  }
  return /^s/i.test(match[2]) ? count * 60 : count;
}
