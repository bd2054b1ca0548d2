/** Default name of the assess queue. */
export const JUDGMENT_ASSESS_QUEUE = 'judgment-assess';
/** Default name of the decide queue. */
export const JUDGMENT_DECIDE_QUEUE = 'judgment-decide';

/** BullMQ worker settings passed through to both processors' workers (see BullMQ's WorkerOptions). */
export interface JudgmentWorkerOptions {
  /** Milliseconds a running job's lock lasts before the job counts as stalled (BullMQ default 30000). */
  lockDuration?: number;
  /** Milliseconds between checks for stalled jobs (BullMQ default 30000). */
  stalledInterval?: number;
  /** How often a job may stall before it fails (BullMQ default 1). */
  maxStalledCount?: number;
  /** Any other BullMQ WorkerOptions (limiter, drainDelay, ...). */
  [option: string]: unknown;
}

/** BullMQ queueing of `judge.dispatch()` (static: it decides whether the BullMQ modules are imported). */
export interface JudgmentQueueOptions {
  /** Queue jobs on BullMQ (default false: dispatch() runs inline, no Redis needed). */
  enabled?: boolean;
  /** Name of the assess queue (default `judgment-assess`). */
  assessQueue?: string;
  /** Name of the decide queue (default `judgment-decide`). */
  decideQueue?: string;
  /** The BullModule.forRoot configKey the queues use. */
  configKey?: string;
  /** Attempts of an assess job (default 1; each attempt is a paid Engine round). Values below 1 count as 1. */
  attempts?: number;
  /** Attempts of a decide job (default 3). Values below 1 count as 1. */
  decideAttempts?: number;
  /** Backoff between attempts of either job (default exponential, 1000 ms). */
  backoff?: { type: 'fixed' | 'exponential'; delay: number };
  /** Worker concurrency of each processor (default 1). */
  concurrency?: number;
  /** Run the assess and decide workers in this app (default true); false for an app that only dispatches. */
  runWorkers?: boolean;
  /** Further BullMQ worker settings (lock duration, stalled-job checks, rate limiter). */
  workerOptions?: JudgmentWorkerOptions;
}

/** The queue options with their defaults applied. */
export interface ResolvedQueueOptions {
  readonly enabled: boolean;
  readonly assessQueue: string;
  readonly decideQueue: string;
  readonly configKey: string | undefined;
  readonly attempts: number;
  readonly decideAttempts: number;
  readonly backoff: { type: 'fixed' | 'exponential'; delay: number };
  readonly concurrency: number;
  readonly runWorkers: boolean;
  readonly workerOptions: JudgmentWorkerOptions;
}

/** Applies the defaults; attempts and concurrency are whole numbers of at least 1. */
export function resolveQueueOptions(options: JudgmentQueueOptions = {}): ResolvedQueueOptions {
  return {
    enabled: options.enabled ?? false,
    assessQueue: options.assessQueue ?? JUDGMENT_ASSESS_QUEUE,
    decideQueue: options.decideQueue ?? JUDGMENT_DECIDE_QUEUE,
    configKey: options.configKey,
    attempts: atLeastOne(options.attempts, 1),
    decideAttempts: atLeastOne(options.decideAttempts, 3),
    backoff: options.backoff ?? { type: 'exponential', delay: 1000 },
    concurrency: atLeastOne(options.concurrency, 1),
    runWorkers: options.runWorkers ?? true,
    workerOptions: options.workerOptions ?? {},
  };
}

function atLeastOne(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(1, Math.trunc(value)) : fallback;
}
