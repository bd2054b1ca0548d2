import { EngineFailed } from '../errors';
import type { OutagePolicy } from '../judgment.options';

/** Network errors of a database or Redis connection that come back by themselves once the server does. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
]);

/**
 * PostgreSQL SQLSTATEs of a server that is away or restarting: class 08 (connection exception), admin or crash
 * shutdown (57P01, 57P02), starting up (57P03), too many connections (53300).
 */
const POSTGRES_AWAY = /^(08...|57P0[123]|53300)$/;

/** Messages of drivers that lost their connection without a code (pg's pool, ioredis). */
const LOST_CONNECTION =
  /Connection terminated|Connection is closed|connection error|server closed the connection|MaxRetriesPerRequest/i;

/** How deep a chain of causes is followed. */
const MAX_CAUSES = 8;

/**
 * Whether `error` is an outage of the infrastructure a job needs (PostgreSQL, Redis) rather than a fault of the
 * Judgment or the Engine: a network error or an away/restarting server, found on the error or its causes (TypeORM's
 * `driverError`, AssessmentNotRecorded's `cause`). An Engine failure is never one: the Engine's attempts count those.
 */
export function isOutage(error: unknown): boolean {
  // Duck-typed, not `instanceof Error`: a driver's errors may come from another realm (a VM context, a test runner).
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof EngineFailed) return false;
    const { code, driverError, cause, message, name } = current as Record<string, unknown>;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_AWAY.test(code))) return true;
    if (LOST_CONNECTION.test(String(message)) || name === 'MaxRetriesPerRequestError') return true;
    current = typeof driverError === 'object' && driverError !== null ? driverError : cause;
  }
  return false;
}

/** Milliseconds to wait before outage retry number `retry` (from 1): `delay` doubling, capped at `maxDelay`. */
export function outageWait(policy: OutagePolicy, retry: number): number {
  return Math.min(policy.maxDelay, policy.delay * 2 ** Math.min(retry - 1, 30));
}
