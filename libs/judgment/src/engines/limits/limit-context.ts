import { AsyncLocalStorage } from 'node:async_hooks';

/** Which share of a connection's limits a call may use: live traffic first, bulk (calibration) within its share. */
export type LimitLane = 'live' | 'bulk';

/** How the Engine calls made inside a piece of work treat the connection's rate limits. */
export interface LimitMode {
  /**
   * True in a queued assess job: a refusal (no slot, or the Engine's 429) throws EngineRateLimitDeferred at once
   * instead of waiting in the process, so the job goes back to the queue and the queue pauses.
   */
  readonly defer: boolean;
  readonly lane: LimitLane;
}

const INLINE: LimitMode = { defer: false, lane: 'live' };
const storage = new AsyncLocalStorage<LimitMode>();

/** Runs `work` with Engine calls made in it treating the rate limits as `mode` says. */
export function withLimitMode<T>(mode: Partial<LimitMode>, work: () => Promise<T>): Promise<T> {
  return storage.run({ ...limitMode(), ...mode }, work);
}

/** The mode of the current call: inline and live unless set by `withLimitMode()`. */
export function limitMode(): LimitMode {
  return storage.getStore() ?? INLINE;
}
