import type { Type } from '@nestjs/common';
import type { Engine } from './engines/engine.interface';
import { DEFAULT_CALIBRATION_CONCURRENCY, DEFAULT_CONNECTION, DEFAULT_RETENTION_DAYS } from './judgment.defaults';

/** One Engine connection (`engines.<name>`). */
export interface EngineConnectionOptions {
  /** `jev` (also serves Laya), `mock`, a driver registered with `EngineManager.extend()`, or an Engine class. */
  driver?: string | Type<Engine>;
  /** API key; sent as a Bearer token, never logged or recorded. */
  key?: string | null;
  /** Base URL (Jev default `https://api.typesafe.ai`). */
  url?: string;
  /** The model to ask: pin an exact version (`jev-1.13.0`) so calibrated thresholds stay valid. */
  model?: string;
  /** Accept an alias model (e.g. `jev-latest`) in production. */
  allowAliases?: boolean;
  /** Refuse to start without a key; default: only when `url` is not a loopback address (127.0.0.0/8, localhost, [::1]). */
  requireKey?: boolean;
  /** Seconds per attempt (default 10). */
  timeout?: number;
  /** Retries of 429/529 answers (default 3). */
  retries?: number;
  /** Largest Classification the connection accepts (Laya: 20); larger ones are refused before asking. */
  maxLabels?: number | null;
  /** Input tokens this process may spend on the connection; at the ceiling no request is sent. */
  budget?: number | null;
  /**
   * The account's rate limits on this connection, shared by every process through Redis (see `limiter`) and by the
   * queue's workers through BullMQ's global rate limiter. Jev publishes 1,200 requests per minute per account.
   */
  limits?: ConnectionLimits | null;
  /** Largest response body read, in bytes (default 4 MiB); a larger answer fails the attempt unread. */
  maxResponseBytes?: number;
  /** Options of custom drivers. */
  [option: string]: unknown;
}

/** A connection's rate limits (`engines.<name>.limits`): each optional, each a positive whole number. */
export interface ConnectionLimits {
  /** Requests the account may send per minute. */
  requestsPerMinute?: number;
  /** Input tokens the account may send per minute (reserved before a call from the last answer's size). */
  tokensPerMinute?: number;
  /**
   * Seconds per counting window (default 60): the window allows `perMinute × windowSeconds / 60`. Shorter windows
   * spread the same rate more evenly; match the Engine's own window when it publishes one.
   */
  windowSeconds?: number;
}

/** How the connections' `limits` are shared and waited for (`limiter`). */
export interface LimiterOptions {
  /**
   * An ioredis client the limits are counted on, shared by every process using it. Default: a connection to the
   * queue's Redis when the queue is enabled; otherwise none, and each process counts alone (startup says so).
   */
  redis?: object | null;
  /** Seconds an inline call (`judge.assess()`, inline dispatch, a calibration) waits for a slot (default 10). */
  maxWait?: number;
  /** Redis key prefix of the counters (default `judgment:limits`); give it a `{hash tag}` on Redis Cluster. */
  prefix?: string;
  /** Share of each window bulk work (calibration runs) may use, above 0 and at most 1 (default 0.5). */
  bulkShare?: number;
}

/** Persistence of Assessments (`judgment_assessments`). */
export interface PersistenceOptions {
  /** Record Assessments and attempts (default true). */
  enabled?: boolean;
  /** Throw AssessmentNotRecorded when an Assessment or Outcome cannot be written (default true). */
  required?: boolean;
  /** Store the Evidence itself (default true); false keeps only its fingerprint and untrusted paths. */
  evidence?: boolean;
  /** Days records are kept by `prune()` (default 365; null keeps them forever). */
  retentionDays?: number | null;
}

/** What the drift guard does when a decision runs under an identity the calibration lock does not vouch for. */
export type DriftPolicy = 'review' | 'warn' | 'off';

/** Calibration runs, and the calibration lock the app runs under. */
export interface CalibrationOptions {
  /** Engine rounds a calibration run keeps in flight (default 4). */
  concurrency?: number;
  /**
   * The calibration lock file (`judgment eval … --lock` writes it; commit it with the app), relative to the working
   * directory. With it, startup lists Decisions without a lock entry or with a stale one, and every decision is
   * checked against the lock's identity (model, Questions fingerprint, Decision version and thresholds).
   */
  lock?: string;
  /**
   * When a decision's identity differs from the lock's: 'review' (default) sends an automatic Outcome to Review
   * instead (the record says why), 'warn' only announces CalibrationDrifted and logs, 'off' checks nothing.
   */
  onDrift?: DriftPolicy;
  /**
   * Audit rates by Decision name (e.g. `{ RefundDecision: 0.02 }`), overriding the Decisions' own `audit`: that share
   * of automatic Outcomes, drawn at random, is also sent to reviewers as an audit while the Outcome stands.
   */
  audit?: Record<string, number>;
}

/** Options of `JudgmentModule.forRoot()`; every one may come from ConfigService through `forRootAsync()`. */
export interface JudgmentModuleOptions {
  /** The default connection (default `jev`). */
  engine?: string;
  /** Connections by name. */
  engines?: Record<string, EngineConnectionOptions>;
  /** Throw EngineFailed on a failed attempt (default true); false returns Unassessed. */
  throwOnFailure?: boolean;
  persistence?: PersistenceOptions;
  /** Write the package's log lines (default true). */
  log?: boolean;
  /** Who may resolve Reviews: a class implementing ResolutionPolicy, instantiated through DI. None refuses everyone. */
  resolutionPolicy?: Type<unknown>;
  calibration?: CalibrationOptions;
  /** Where the connections' `limits` are counted, and how long inline calls wait for a slot. */
  limiter?: LimiterOptions;
  /** The review desk's deadlines (declared per Decision: `@Decision({ review: { deadline, onExpiry } })`). */
  review?: {
    /**
     * How often this app sweeps for Reviews past their deadline (`'1m'`, `'30s'`, or milliseconds; at least 1 second),
     * or false for never (then run `judgment review:expire`). Default: every minute with the queue off (and only when a
     * registered Decision declares a deadline); never with the queue on, where each deadline is a delayed job.
     */
    sweepInterval?: string | number | false;
  };
  /** The environment name; `production` refuses alias models. Default: NODE_ENV. */
  environment?: string;
  /**
   * Refuse a round (MissingEvidencePath, nothing asked) when a question's text names in backticks an Evidence path
   * the prepared Evidence does not have. Default false: the round goes out, and one warning per Judgment and path is
   * logged and each such attempt's record notes the path.
   */
  strictEvidencePaths?: boolean;
}

/** The persistence options with their defaults applied. */
export interface ResolvedPersistence {
  readonly enabled: boolean;
  readonly required: boolean;
  readonly evidence: boolean;
  readonly retentionDays: number | null;
}

/** The module options with their defaults applied, built once per module and injected into every service. */
export interface ResolvedJudgmentOptions {
  /** The options as given (connections keep theirs: each driver checks and defaults its own). */
  readonly given: JudgmentModuleOptions;
  /** The default connection's name (not yet checked: EngineManager refuses an empty one). */
  readonly defaultConnection: unknown;
  readonly throwOnFailure: boolean;
  readonly persistence: ResolvedPersistence;
  readonly log: boolean;
  /** Refuse rounds whose questions name (in backticks) an Evidence path the Evidence does not have. */
  readonly strictEvidencePaths: boolean;
  /** Checked when a Calibration run starts. */
  readonly calibrationConcurrency: unknown;
  /** The calibration lock's path, or null (checked when the module starts). */
  readonly calibrationLock: unknown;
  /** Checked when the module starts. */
  readonly onDrift: unknown;
  /** Audit rates by Decision name (checked when the module starts). */
  readonly auditRates: unknown;
}

/** Applies the defaults of judgment.defaults.ts to the module options. */
export function resolveJudgmentOptions(options: JudgmentModuleOptions): ResolvedJudgmentOptions {
  const p = options.persistence ?? {};
  return Object.freeze({
    given: options,
    defaultConnection: options.engine === undefined ? DEFAULT_CONNECTION : options.engine,
    throwOnFailure: options.throwOnFailure ?? true,
    persistence: Object.freeze({
      enabled: p.enabled ?? true,
      required: p.required ?? true,
      evidence: p.evidence ?? true,
      retentionDays: p.retentionDays === undefined ? DEFAULT_RETENTION_DAYS : p.retentionDays,
    }),
    log: options.log !== false,
    strictEvidencePaths: options.strictEvidencePaths === true,
    calibrationConcurrency: options.calibration?.concurrency ?? DEFAULT_CALIBRATION_CONCURRENCY,
    calibrationLock: options.calibration?.lock ?? null,
    onDrift: options.calibration?.onDrift ?? 'review',
    auditRates: options.calibration?.audit ?? {},
  });
}

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
  /** Name of the review queue, holding each review deadline as a delayed job (default `judgment-review`). */
  reviewQueue?: string;
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
  /**
   * On a rate-limit refusal in an assess job (the connection's `limits`, or the Engine's 429), pause the whole queue
   * for the time given and put the job back without counting an attempt (default true). False lets the driver retry
   * in the job, as it does inline (holding the worker's slot while it waits).
   */
  pauseOnRateLimit?: boolean;
  /**
   * How jobs ride out an outage of PostgreSQL or Redis (a refused or lost connection, a restarting server): the job
   * waits and runs again without spending one of its `attempts`, for up to `retryFor` ms (default 600 000: ten
   * minutes covers a server restart or a managed failover), waiting `delay` ms (default 1000) doubling up to
   * `maxDelay` ms (default 30 000). Paid answers that could not be recorded are kept in the job and recorded on the
   * next run without asking the Engine again.
   */
  outage?: { retryFor?: number; delay?: number; maxDelay?: number };
}
