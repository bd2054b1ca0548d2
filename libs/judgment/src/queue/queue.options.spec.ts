import { judgmentQueueAttemptsFromEnv } from '../judgment.env';
import { resolveQueueOptions } from './queue.options';

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

  it('take the attempts from JUDGMENT_QUEUE_TRIES and JUDGMENT_QUEUE_DECIDE_TRIES', () => {
    const env = judgmentQueueAttemptsFromEnv({ JUDGMENT_QUEUE_TRIES: '2', JUDGMENT_QUEUE_DECIDE_TRIES: '5' });
    expect(resolveQueueOptions({ enabled: true, ...env })).toMatchObject({ attempts: 2, decideAttempts: 5 });
  });
});
