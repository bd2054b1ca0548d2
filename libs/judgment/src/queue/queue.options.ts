import type { JudgmentQueueOptions, JudgmentWorkerOptions } from '../judgment.options';
import type { OutagePolicy } from './outage';

/** Default name of the assess queue. */
export const JUDGMENT_ASSESS_QUEUE = 'judgment-assess';
/** Default name of the decide queue. */
export const JUDGMENT_DECIDE_QUEUE = 'judgment-decide';

/** Default name of the review queue (the delayed jobs of review deadlines). */
export const JUDGMENT_REVIEW_QUEUE = 'judgment-review';

/** The queue options with their defaults applied. */
export interface ResolvedQueueOptions {
  readonly enabled: boolean;
  readonly assessQueue: string;
  readonly decideQueue: string;
  readonly reviewQueue: string;
  readonly configKey: string | undefined;
  readonly attempts: number;
  readonly decideAttempts: number;
  readonly backoff: { type: 'fixed' | 'exponential'; delay: number };
  readonly concurrency: number;
  readonly runWorkers: boolean;
  readonly workerOptions: JudgmentWorkerOptions;
  readonly pauseOnRateLimit: boolean;
  readonly outage: OutagePolicy;
}

/** Applies the defaults; attempts and concurrency are whole numbers of at least 1. */
export function resolveQueueOptions(options: JudgmentQueueOptions = {}): ResolvedQueueOptions {
  return {
    enabled: options.enabled ?? false,
    assessQueue: options.assessQueue ?? JUDGMENT_ASSESS_QUEUE,
    decideQueue: options.decideQueue ?? JUDGMENT_DECIDE_QUEUE,
    reviewQueue: options.reviewQueue ?? JUDGMENT_REVIEW_QUEUE,
    configKey: options.configKey,
    attempts: atLeastOne(options.attempts, 1),
    decideAttempts: atLeastOne(options.decideAttempts, 3),
    backoff: options.backoff ?? { type: 'exponential', delay: 1000 },
    concurrency: atLeastOne(options.concurrency, 1),
    runWorkers: options.runWorkers ?? true,
    workerOptions: options.workerOptions ?? {},
    pauseOnRateLimit: options.pauseOnRateLimit ?? true,
    outage: {
      retryFor: atLeastOne(options.outage?.retryFor, 600_000),
      delay: atLeastOne(options.outage?.delay, 1000),
      maxDelay: atLeastOne(options.outage?.maxDelay, 30_000),
    },
  };
}

function atLeastOne(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(1, Math.trunc(value)) : fallback;
}
