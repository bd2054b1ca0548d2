import { InvalidRateLimit } from '../../errors';
import { judgmentOptionsFromEnv } from '../../judgment.env';
import { resolveLimiter } from '../../judgment.options';
import { connectionLimits, perMinuteFromEnv, queueRateLimit } from './connection-limits';

const refusal = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRateLimit);
    return (error as Error).message;
  }
  throw new Error('expected InvalidRateLimit');
};

describe('connection limits', () => {
  it('are none when the connection sets none', () => {
    expect(connectionLimits('jev', {})).toBeNull();
    expect(connectionLimits('jev', { limits: null })).toBeNull();
  });

  it('allow perMinute × windowSeconds / 60 per window, a minute by default', () => {
    expect(connectionLimits('jev', { limits: { requestsPerMinute: 1200, tokensPerMinute: 400_000 } })).toEqual({
      requestsPerMinute: 1200,
      tokensPerMinute: 400_000,
      windowSeconds: 60,
      requestsPerWindow: 1200,
      tokensPerWindow: 400_000,
      burst: null,
    });
    expect(connectionLimits('jev', { limits: { requestsPerMinute: 600, windowSeconds: 10 } })).toMatchObject({
      requestsPerWindow: 100,
      tokensPerWindow: null,
    });
  });

  it.each([0, -5, 2.5, NaN, 'many', '12/min'])('refuse %p as a limit, naming the option', (value) => {
    expect(refusal(() => connectionLimits('laya', { limits: { requestsPerMinute: value as number } }))).toContain(
      'engines.laya.limits.requestsPerMinute must be a positive whole number',
    );
  });

  it('refuse an unknown key and a window too short for the limit', () => {
    expect(refusal(() => connectionLimits('jev', { limits: { rpm: 5 } as object }))).toContain(
      'engines.jev.limits.rpm is not a limit',
    );
    expect(refusal(() => connectionLimits('jev', { limits: { requestsPerMinute: 10, windowSeconds: 5 } }))).toContain(
      'allows less than one per window of 5 s',
    );
  });

  it("pace the queue to the account's bucket with a burst, else to the window and a margin", () => {
    const bucket = connectionLimits('jev', { limits: { requestsPerMinute: 1200, burst: 20 } })!;
    expect(bucket.burst).toBe(20);
    // Half the bucket per the time the account takes to refill it: 10 jobs per 500 ms, 1,200 a minute.
    expect(queueRateLimit(bucket)).toEqual({ max: 10, durationMs: 500 });
    expect(queueRateLimit(connectionLimits('jev', { limits: { requestsPerMinute: 50, burst: 3 } })!)).toEqual({
      max: 1,
      durationMs: 1200,
    });
    expect(queueRateLimit(connectionLimits('jev', { limits: { requestsPerMinute: 1200 } })!)).toEqual({
      max: 1200,
      durationMs: 61_200,
    });
    expect(queueRateLimit(connectionLimits('jev', { limits: { tokensPerMinute: 1000 } })!)).toBeNull();
  });

  it('refuse a burst without the rate that refills it, or not a whole number', () => {
    expect(refusal(() => connectionLimits('jev', { limits: { burst: 20 } }))).toBe(
      "engines.jev.limits.burst is the size of the account's request bucket, which refills at requestsPerMinute: " +
        'give engines.jev.limits.requestsPerMinute too, or remove burst.',
    );
    expect(refusal(() => connectionLimits('jev', { limits: { requestsPerMinute: 60, burst: 0.5 } }))).toContain(
      'engines.jev.limits.burst must be a positive whole number',
    );
  });

  it('come from the environment only with a time unit', () => {
    expect(perMinuteFromEnv('JUDGMENT_JEV_LIMIT_REQUESTS', '1200/min')).toBe(1200);
    expect(perMinuteFromEnv('JUDGMENT_JEV_LIMIT_REQUESTS', '20/s')).toBe(1200);
    expect(refusal(() => perMinuteFromEnv('JUDGMENT_JEV_LIMIT_REQUESTS', '1200'))).toBe(
      'JUDGMENT_JEV_LIMIT_REQUESTS must be a positive whole number with its time unit, such as 1200/min or 20/s; ' +
        'got "1200".',
    );
    const options = judgmentOptionsFromEnv({
      JUDGMENT_JEV_LIMIT_REQUESTS: '1200/min',
      JUDGMENT_JEV_LIMIT_TOKENS: '400000/min',
      JUDGMENT_LIMIT_MAX_WAIT: '2.5',
    });
    expect(options.engines?.jev?.limits).toEqual({ requestsPerMinute: 1200, tokensPerMinute: 400_000 });
    expect(options.limiter).toEqual({ maxWait: 2.5 });
    expect(judgmentOptionsFromEnv({}).engines?.jev?.limits).toBeNull();
    expect(
      judgmentOptionsFromEnv({ JUDGMENT_LAYA_LIMIT_REQUESTS: '20/s', JUDGMENT_LAYA_LIMIT_BURST: '20' }).engines?.laya
        ?.limits,
    ).toEqual({ requestsPerMinute: 1200, burst: 20 });
  });

  it('limiter options are checked: maxWait, bulkShare, an ioredis client', () => {
    expect(resolveLimiter(undefined)).toEqual({
      redis: undefined, // not given: the queue's Redis when the queue is on, else this process alone
      maxWaitMs: 10_000,
      prefix: 'judgment:limits',
      bulkShare: 0.5,
    });
    expect(refusal(() => resolveLimiter({ maxWait: -1 }))).toContain('limiter.maxWait');
    expect(refusal(() => resolveLimiter({ bulkShare: 0 }))).toContain('limiter.bulkShare');
    expect(refusal(() => resolveLimiter({ redis: { host: 'localhost' } }))).toContain('limiter.redis');
  });
});
