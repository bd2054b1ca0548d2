import { EngineRateLimitDeferred, EngineRateLimited } from '../../errors';
import { resolveLimiter } from '../../judgment.options';
import { connectionLimits } from './connection-limits';
import { ConnectionLimiter } from './connection.limiter';

const LIVE = { defer: false, lane: 'live' } as const;

function limiter(limits: object, options: { maxWait?: number; bulkShare?: number } = {}) {
  const resolved = connectionLimits('jev', { limits })!;
  return new ConnectionLimiter('jev', resolved, { ...resolveLimiter(options), redis: null }, 'process');
}

describe('ConnectionLimiter (per process)', () => {
  it('lets the window’s requests through, then fails fast when the next slot is beyond maxWait', async () => {
    const jev = limiter({ requestsPerMinute: 2, windowSeconds: 60 }, { maxWait: 0.05 });
    await jev.acquire(0, LIVE);
    await jev.acquire(0, LIVE);
    const started = Date.now();
    const error = await jev.acquire(0, LIVE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineRateLimited);
    expect((error as EngineRateLimited).retryAfterMs).toBeGreaterThan(50_000);
    expect(Date.now() - started).toBeLessThan(500);
    expect(await jev.usage()).toMatchObject({ requests: 2, tokens: null });
  });

  it('waits for the next window when it comes within maxWait', async () => {
    const jev = limiter({ requestsPerMinute: 60, windowSeconds: 1 }, { maxWait: 3 });
    await jev.acquire(0, LIVE);
    const started = Date.now();
    await jev.acquire(0, LIVE);
    expect(Date.now() - started).toBeGreaterThan(300);
  });

  it('in a queued job refuses at once with the wait, for the queue to pause', async () => {
    const jev = limiter({ requestsPerMinute: 1 });
    await jev.acquire(0, { defer: true, lane: 'live' });
    const error = await jev.acquire(0, { defer: true, lane: 'live' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineRateLimitDeferred);
    expect((error as EngineRateLimitDeferred).retryAfterMs).toBeGreaterThan(50_000);
  });

  it('reserves the estimated tokens and corrects them with the reported usage', async () => {
    const jev = limiter({ tokensPerMinute: 1000 }, { maxWait: 0 });
    const reservation = await jev.acquire(300, LIVE);
    expect((await jev.usage()).tokens).toBe(300);
    await jev.settle(reservation, 120);
    expect((await jev.usage()).tokens).toBe(120);
    await jev.acquire(880, LIVE);
    await expect(jev.acquire(1, LIVE)).rejects.toBeInstanceOf(EngineRateLimited);
    // The refused call took nothing.
    expect((await jev.usage()).tokens).toBe(1000);
  });

  it('gives bulk calls only their share of the window, and live calls the rest', async () => {
    const jev = limiter({ requestsPerMinute: 10 }, { maxWait: 0, bulkShare: 0.3 });
    const bulk = { defer: false, lane: 'bulk' } as const;
    for (let n = 0; n < 3; n++) await jev.acquire(0, bulk);
    await expect(jev.acquire(0, bulk)).rejects.toBeInstanceOf(EngineRateLimited);
    for (let n = 0; n < 7; n++) await jev.acquire(0, LIVE);
    await expect(jev.acquire(0, LIVE)).rejects.toBeInstanceOf(EngineRateLimited);
  });
});
