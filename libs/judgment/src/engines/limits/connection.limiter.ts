import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { EngineRateLimitDeferred, EngineRateLimited } from '../../errors';
import type { LimitSharing, ResolvedLimits } from './connection-limits';
import type { LimitMode } from '../engine.interface';

/** Where a connection's counters live: Redis (shared by every process) or this process's memory. */
export type LimitStore = 'redis' | 'process';

/** What one window of a connection's limits has used so far. */
export interface LimitUsage {
  readonly requests: number | null;
  readonly tokens: number | null;
  /** Milliseconds until the current window ends (0 when no window is open). */
  readonly windowEndsInMs: number;
}

/** One counter: a rate-limiter-flexible limiter and the key it counts under. */
interface Counter {
  readonly limiter: RateLimiterAbstract;
  readonly points: number;
}

/** Tokens a reservation holds, corrected when the answer reports what it really used. */
export interface TokenReservation {
  readonly tokens: number;
}

const KEY = 'count';
/** Milliseconds before a window's end within which a refused consume is not given back. */
const REWARD_MARGIN_MS = 100;

/**
 * One connection's requests and input tokens per window, counted with rate-limiter-flexible on Redis (shared by every
 * process on it; an in-memory limiter stands in while Redis is unreachable) or in this process. Bulk calls are also
 * counted against their share of the window, so live calls always find the rest.
 */
export class ConnectionLimiter {
  private readonly requests: Counter | null;
  private readonly tokens: Counter | null;
  private readonly bulk: Counter | null;
  /** Share of each window bulk calls may use. */
  readonly bulkShare: number;

  constructor(
    readonly connection: string,
    readonly limits: ResolvedLimits,
    private readonly limiter: LimitSharing,
    readonly store: LimitStore,
  ) {
    this.bulkShare = limiter.bulkShare;
    this.requests = this.counter('requests', limits.requestsPerWindow);
    this.tokens = this.counter('tokens', limits.tokensPerWindow);
    const share = limits.requestsPerWindow === null ? null : Math.floor(limits.requestsPerWindow * limiter.bulkShare);
    this.bulk = this.counter('bulk-requests', share === null ? null : Math.max(1, share));
  }

  /**
   * Takes one request and `estimatedTokens` from the window, waiting for a slot up to `limiter.maxWait` (inline), or
   * refusing at once with EngineRateLimitDeferred (a queued job). EngineRateLimited when no slot comes in time.
   */
  async acquire(estimatedTokens: number, mode: LimitMode): Promise<TokenReservation> {
    const tokens = this.tokens ? Math.min(Math.max(0, Math.ceil(estimatedTokens)), this.tokens.points) : 0;
    const deadline = Date.now() + this.limiter.maxWaitMs;
    for (;;) {
      const waitMs = await this.take(tokens, mode.lane);
      if (waitMs === null) return { tokens };
      if (mode.defer) {
        throw new EngineRateLimitDeferred(
          `The Engine connection "${this.connection}" has used its rate limit for this window; the next slot is in ` +
            `${waitMs} ms.`,
          waitMs,
        );
      }
      if (Date.now() + waitMs > deadline) {
        throw new EngineRateLimited(
          `The Engine connection "${this.connection}" has no free slot under engines.${this.connection}.limits ` +
            `within limiter.maxWait (${this.limiter.maxWaitMs / 1000} s), so nothing was sent. Retry in ` +
            `${Math.ceil(waitMs / 1000)} s, raise limiter.maxWait, or queue the work (judge.dispatch()).`,
          { retryAfterMs: waitMs },
        );
      }
      // A little jitter, so the callers waiting for the same window do not all ask at its first millisecond.
      await sleep(waitMs + Math.floor(Math.random() * 25));
    }
  }

  /** Corrects a reservation with the tokens the answer reports. */
  async settle(reservation: TokenReservation, usedTokens: number | null): Promise<void> {
    if (!this.tokens || usedTokens === null) return;
    const difference = Math.ceil(usedTokens) - reservation.tokens;
    if (difference > 0) await this.tokens.limiter.penalty(KEY, difference);
    else if (difference < 0) await this.tokens.limiter.reward(KEY, -difference);
  }

  /** Closes the current window for `ms` (the Engine answered 429): every process waits until then. */
  async block(ms: number): Promise<void> {
    if (!this.requests || ms <= 0) return;
    await this.requests.limiter.block(KEY, Math.max(1, Math.ceil(ms / 1000)));
  }

  /** What the current window has used. */
  async usage(): Promise<LimitUsage> {
    const read = async (counter: Counter | null) => (counter ? await counter.limiter.get(KEY) : null);
    const [requests, tokens] = await Promise.all([read(this.requests), read(this.tokens)]);
    const used = (counter: Counter | null, res: RateLimiterRes | null) =>
      counter ? Math.min(res?.consumedPoints ?? 0, counter.points) : null;
    return {
      requests: used(this.requests, requests),
      tokens: used(this.tokens, tokens),
      windowEndsInMs: Math.max(requests?.msBeforeNext ?? 0, tokens?.msBeforeNext ?? 0),
    };
  }

  /** Takes the slot, or returns the milliseconds until one may be free (giving back what it took). */
  private async take(tokens: number, lane: LimitMode['lane']): Promise<number | null> {
    const taken: Array<[Counter, number]> = [];
    const steps: Array<[Counter | null, number]> = [
      [lane === 'bulk' ? this.bulk : null, 1],
      [this.requests, 1],
      [this.tokens, tokens],
    ];
    for (const [counter, points] of steps) {
      if (!counter || points === 0) continue;
      try {
        await counter.limiter.consume(KEY, points);
        taken.push([counter, points]);
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        // A refused consume is still counted by the limiter: give it back, with whatever this call took before —
        // unless its window is about to end, where the give-back could land in the next window as extra room.
        if (refusal.msBeforeNext > REWARD_MARGIN_MS) taken.push([counter, points]);
        await Promise.all(taken.map(([owner, count]) => owner.limiter.reward(KEY, count)));
        return Math.max(1, refusal.msBeforeNext);
      }
    }
    return null;
  }

  private counter(name: string, points: number | null): Counter | null {
    if (points === null) return null;
    const options = {
      keyPrefix: `${this.limiter.prefix}:${this.connection}:${name}`,
      points,
      duration: this.limits.windowSeconds,
    };
    const memory = new RateLimiterMemory(options);
    const limiter =
      this.store === 'redis'
        ? new RateLimiterRedis({ ...options, storeClient: this.limiter.redis, insuranceLimiter: memory })
        : memory;
    return { limiter, points };
  }
}
