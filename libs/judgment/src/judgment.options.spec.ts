import { EngineNotConfigured, InvalidCalibration, InvalidConfiguration, InvalidRateLimit } from './errors';
import { JUDGMENT_DEFAULTS } from './judgment.defaults';
import { judgmentQueueAttemptsFromEnv } from './judgment.env';
import {
  type JudgmentModuleOptions,
  resolveJudgmentExtras,
  resolveJudgmentOptions,
  resolveQueueOptions,
  sweepInterval,
} from './judgment.options';

const refusal = (options: unknown): Error => {
  try {
    resolveJudgmentOptions(options as JudgmentModuleOptions);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the options to be refused');
};

describe('the resolved module options', () => {
  it('apply the defaults of judgment.defaults.ts to options left unset', () => {
    const resolved = resolveJudgmentOptions({}, resolveJudgmentExtras({}));
    expect(resolved).toMatchObject({
      defaultConnection: JUDGMENT_DEFAULTS.engine,
      connections: {},
      drivers: {},
      throwOnFailure: true,
      persistence: { enabled: true, required: true, evidence: true, retentionDays: 365 },
      log: true,
      strictEvidencePaths: false,
      resolutionPolicy: null,
      calibration: { concurrency: 8, lock: null, onDrift: 'review', audit: {} },
      limiter: { redis: undefined, maxWaitMs: 10_000, prefix: 'judgment:limits', bulkShare: 0.5 },
      reviewSweepInterval: 60_000,
      dataSource: undefined,
    });
    expect(resolved.queue).toEqual(resolveQueueOptions());
    expect(Object.isFrozen(resolved)).toBe(true);
  });

  it('keep what is given', () => {
    const resolved = resolveJudgmentOptions({
      engine: 'mock',
      engines: { mock: { driver: 'mock' } },
      throwOnFailure: false,
      persistence: { enabled: false, retentionDays: null },
      log: false,
      strictEvidencePaths: true,
      calibration: { concurrency: 3, lock: 'judgment.lock.json', onDrift: 'warn', audit: { RefundDecision: 0.1 } },
      limiter: { maxWait: 0.5, prefix: 'app:limits', bulkShare: 0.25, redis: null },
      review: { sweepInterval: '30s' },
      environment: 'staging',
    });
    expect(resolved).toMatchObject({
      defaultConnection: 'mock',
      connections: { mock: { driver: 'mock' } },
      throwOnFailure: false,
      persistence: { enabled: false, required: true, evidence: true, retentionDays: null },
      log: false,
      strictEvidencePaths: true,
      calibration: { concurrency: 3, lock: 'judgment.lock.json', onDrift: 'warn', audit: { RefundDecision: 0.1 } },
      limiter: { redis: null, maxWaitMs: 500, prefix: 'app:limits', bulkShare: 0.25 },
      reviewSweepInterval: 30_000,
      environment: 'staging',
    });
  });

  it('take the environment from NODE_ENV when the option is unset', () => {
    const env = jest.replaceProperty(process, 'env', { ...process.env, NODE_ENV: 'production' });
    try {
      expect(resolveJudgmentOptions({}).environment).toBe('production');
      expect(resolveJudgmentOptions({ environment: 'test' }).environment).toBe('test');
    } finally {
      env.restore();
    }
  });

  it.each([
    [{ engine: '' }, EngineNotConfigured, /No default Engine connection is set/],
    [{ throwOnFailure: 'no' }, InvalidConfiguration, /option throwOnFailure must be true or false; got "no"/],
    [{ log: 0 }, InvalidConfiguration, /option log must be true or false; got 0/],
    [{ persistence: { evidence: 'false' } }, InvalidConfiguration, /option persistence.evidence must be true or false/],
    [{ persistence: { retentionDays: -1 } }, InvalidConfiguration, /option persistence.retentionDays must be/],
    [{ persistence: true }, InvalidConfiguration, /option persistence must be an object; got true/],
    [{ drivers: { keywords: 'KeywordEngine' } }, InvalidConfiguration, /option drivers.keywords must be a factory/],
    [{ resolutionPolicy: class NoPolicy {} }, InvalidConfiguration, /resolutionPolicy must be a class implementing/],
    [{ calibration: { concurrency: 0 } }, InvalidCalibration, /option calibration.concurrency must be a whole number/],
    [{ calibration: { lock: ' ' } }, InvalidConfiguration, /option calibration.lock must be the path/],
    [
      { calibration: { onDrift: 'ignore' } },
      InvalidConfiguration,
      /calibration.onDrift must be 'review', 'warn' or 'off'/,
    ],
    [
      { calibration: { audit: { RefundDecision: 2 } } },
      InvalidConfiguration,
      /calibration.audit.RefundDecision must be a share/,
    ],
    [{ limiter: { maxWait: -1 } }, InvalidRateLimit, /limiter.maxWait must be a number of seconds/],
    [{ review: { sweepInterval: 'often' } }, InvalidConfiguration, /option review.sweepInterval is unusable/],
    [{ environment: 42 }, InvalidConfiguration, /option environment must be the environment's name/],
  ])('refuse %p, naming the option', (options, type, message) => {
    const error = refusal(options);
    expect(error).toBeInstanceOf(type);
    expect(error.message).toMatch(message);
  });

  it('refuse isGlobal: the services are always global', () => {
    expect(() => resolveJudgmentExtras({ isGlobal: true } as never)).toThrow(InvalidConfiguration);
    expect(() => resolveJudgmentExtras({ isGlobal: false } as never)).toThrow(/no longer takes isGlobal/);
  });

  it.each([
    [{ enabled: 'yes' }, /option queue.enabled must be true or false; got "yes"/],
    [{ runWorkers: 1 }, /option queue.runWorkers must be true or false; got 1/],
    [{ pauseOnRateLimit: 'false' }, /option queue.pauseOnRateLimit must be true or false/],
    [{ assessQueue: '' }, /option queue.assessQueue must be a non-empty string; got ""/],
    [{ decideQueue: 7 }, /option queue.decideQueue must be a non-empty string; got 7/],
    [{ configKey: {} }, /option queue.configKey must be a non-empty string; got an object/],
    [{ attempts: '3' }, /option queue.attempts must be a number; got "3"/],
    [{ concurrency: null }, /option queue.concurrency must be a number; got null/],
    [{ decideConcurrency: '4' }, /option queue.decideConcurrency must be a number; got "4"/],
    [{ outage: { retryFor: 'long' } }, /option queue.outage.retryFor must be a number/],
    [{ outage: 5 }, /option queue.outage must be an object; got 5/],
    [{ backoff: { type: 'linear', delay: 1000 } }, /queue.backoff.type must be 'fixed' or 'exponential'; got "linear"/],
    [{ backoff: { type: 'fixed', delay: -1 } }, /queue.backoff.delay must be milliseconds/],
    [{ workerOptions: 'fast' }, /option queue.workerOptions must be an object/],
  ])('refuse the queue extra %p, naming the option', (queue, message) => {
    expect(() => resolveJudgmentExtras({ queue } as never)).toThrow(InvalidConfiguration);
    expect(() => resolveJudgmentExtras({ queue } as never)).toThrow(message);
  });

  it('refuse a data source name that is not a string', () => {
    expect(() => resolveJudgmentExtras({ dataSource: 7 as never })).toThrow(/option dataSource must be the name/);
  });
});

describe('queue options', () => {
  it('default to the queue off, one assess attempt, three decide attempts with exponential backoff', () => {
    expect(resolveQueueOptions()).toEqual({
      enabled: false,
      assessQueue: 'judgment-assess',
      decideQueue: 'judgment-decide',
      reviewQueue: 'judgment-review',
      configKey: undefined,
      attempts: 1,
      decideAttempts: 3,
      backoff: { type: 'exponential', delay: 1000 },
      concurrency: 1,
      decideConcurrency: 1,
      runWorkers: true,
      workerOptions: {},
      pauseOnRateLimit: true,
      outage: { retryFor: 600_000, delay: 1000, maxDelay: 30_000 },
    });
  });

  it.each([
    [0, 1, 1],
    [-2, 1, 1],
    [2.7, 2, 2],
    [5, 5, 5],
    [NaN, 1, 3],
  ])('clamp attempts %p to whole numbers of at least 1 (%p, %p); NaN takes the default', (given, attempts, decide) => {
    expect(resolveQueueOptions({ attempts: given, decideAttempts: given })).toMatchObject({
      attempts,
      decideAttempts: decide,
    });
  });

  it.each([
    [1, undefined, 1],
    [3, undefined, 1],
    [8, undefined, 2],
    [32, undefined, 8],
    [33, undefined, 9],
    [32, 32, 32],
    [32, 0, 1],
    [undefined, 5, 5],
  ])('run decide jobs at concurrency %p, decideConcurrency %p: %p at once', (concurrency, decide, resolved) => {
    expect(resolveQueueOptions({ concurrency, decideConcurrency: decide }).decideConcurrency).toBe(resolved);
  });

  it('take the attempts from JUDGMENT_QUEUE_TRIES and JUDGMENT_QUEUE_DECIDE_TRIES', () => {
    const env = judgmentQueueAttemptsFromEnv({ JUDGMENT_QUEUE_TRIES: '2', JUDGMENT_QUEUE_DECIDE_TRIES: '5' });
    expect(resolveQueueOptions({ enabled: true, ...env })).toMatchObject({ attempts: 2, decideAttempts: 5 });
  });
});

describe('the review deadline sweep interval', () => {
  it('defaults to every minute with the queue off and to none with the queue on', () => {
    expect(sweepInterval(undefined, false)).toBe(60_000);
    expect(sweepInterval(undefined, true)).toBeNull();
  });

  it('false turns it off; a duration sets it', () => {
    expect(sweepInterval(false, false)).toBeNull();
    expect(sweepInterval('30s', true)).toBe(30_000);
    expect(sweepInterval(5000, false)).toBe(5000);
  });

  it.each([
    ['often', /"often" cannot be parsed/],
    ['0s', /"0s" is outside 1 second to 24 hours/],
    [500, /500 is outside 1 second to 24 hours/],
  ])('refuses %p with InvalidConfiguration naming the option', (value, message) => {
    expect(() => sweepInterval(value, false)).toThrow(InvalidConfiguration);
    expect(() => sweepInterval(value, false)).toThrow(message);
    expect(() => sweepInterval(value, false)).toThrow(/JudgmentModule option review.sweepInterval is unusable/);
  });
});
