import type { Type } from '@nestjs/common';
import { parseDuration } from './decision/duration';
import type { Engine } from './engines/engine.interface';
import { EngineNotConfigured, InvalidCalibration, InvalidConfiguration, InvalidRateLimit } from './errors';
import { JUDGMENT_DEFAULTS } from './judgment.defaults';

/** One Engine connection (`engines.<name>`). */
export interface EngineConnectionOptions {
  /** `jev` (also serves Laya), `openai`, `mock`, a driver of the `drivers` option, or an Engine class. */
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
  /** What a round on this connection costs; records, `judgment status` and the `judgment.cost` metric show it. */
  price?: ConnectionPrice | null;
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
  /**
   * Requests the account's bucket holds (its burst), when the Engine refills a bucket continuously at
   * `requestsPerMinute` rather than counting fixed windows: each assess queue then starts its jobs in steps of half the
   * bucket, so the workers keep the account near its limit without a 429. Needs `requestsPerMinute`.
   */
  burst?: number;
}

/**
 * What a connection charges (`engines.<name>.price`), each figure optional and ≥ 0, at least one given: per million
 * input and output tokens, and per paid request. Checked by `connectionPrice` (engines/pricing) when the connection
 * is built.
 */
export interface ConnectionPrice {
  /** Price of 1,000,000 input (prompt) tokens. */
  inputPerMillion?: number;
  /** Price of 1,000,000 output (completion) tokens. */
  outputPerMillion?: number;
  /** Price of one paid request (a 2xx answer). */
  perRequest?: number;
  /** The currency of the figures (default `USD`): a code of 1 to 16 letters, digits, `_` or `-`. */
  currency?: string;
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
  /** Engine rounds a calibration run keeps in flight (default 8). */
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

/** What a driver factory is given besides the connection's options. */
export interface EngineFactoryContext {
  /** The connection name. */
  readonly name: string;
  /** The module options, resolved. */
  readonly options: ResolvedJudgmentOptions;
  /** Aborts when the app shuts down: a driver cancels its retry waits and sends nothing more. */
  readonly shutdown: AbortSignal;
}

/** Builds a connection's Engine from its options (`engines.<name>`). */
export type EngineFactory = (config: EngineConnectionOptions, context: EngineFactoryContext) => Engine;

/** Options of `JudgmentModule.forRoot()`; every one may come from ConfigService through `forRootAsync()`. */
export interface JudgmentModuleOptions {
  /** The default connection (default `jev`). */
  engine?: string;
  /** Connections by name. */
  engines?: Record<string, EngineConnectionOptions>;
  /**
   * Drivers of your own by name (`{ keywords: (config, { name }) => new KeywordEngine(...) }`): a connection names one
   * with `driver: 'keywords'`. They win over the built-in drivers of the same name.
   */
  drivers?: Record<string, EngineFactory>;
  /** Throw EngineFailed on a failed attempt (default true); false returns Unassessed. */
  throwOnFailure?: boolean;
  persistence?: PersistenceOptions;
  /** Write the package's log lines (default true). */
  log?: boolean;
  /**
   * Who may resolve Reviews: a class implementing ResolutionPolicy (the app's own provider of it when it registers
   * one, else instantiated through DI). None refuses everyone. Static: with `forRootAsync()`, give it beside useFactory.
   */
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
  /**
   * Largest Evidence one round may show, in UTF-8 bytes of its JSON (default 1 MiB, 1048576): larger Evidence is
   * refused with InvalidEvidence before any Engine call. `@Judgment({ maxEvidenceBytes })` overrides it per Judgment.
   */
  maxEvidenceBytes?: number;
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
  /** Assess jobs each worker runs at once, and the review queue's worker too (default 1). */
  concurrency?: number;
  /**
   * Decide jobs each worker runs at once (default: a quarter of `concurrency`, rounded up). A decide job holds its
   * slot for a few milliseconds (no Engine round), so fewer slots keep up with the assess jobs, and the decide jobs
   * chained by a burst of finished assess jobs do not crowd the event loop the assess jobs share.
   */
  decideConcurrency?: number;
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

/**
 * Static options of `JudgmentModule.forRoot()`: they decide which modules are imported and which classes DI builds,
 * so they cannot come from an async factory. With `forRootAsync()` they sit beside `useFactory`.
 */
export interface JudgmentModuleExtras {
  /** BullMQ queueing (off by default: `dispatch()` runs inline). */
  queue?: JudgmentQueueOptions;
  /** The TypeORM data source name, or false when the app has no TypeORM (then persistence must be disabled). */
  dataSource?: string | false;
  /**
   * The ResolutionPolicy class (see the option of the same name). DI builds it from the class given when the module
   * is declared, so with `forRootAsync()` it sits beside `useFactory`, not in what the factory returns.
   */
  resolutionPolicy?: Type<unknown>;
  /**
   * The Engine classes the connections of `forRootAsync()`'s factory name as their `driver`: DI builds them from the
   * classes given when the module is declared. `forRoot()` finds them in `engines` itself.
   */
  driverClasses?: Type<Engine>[];
}

/** The persistence options with their defaults applied. */
export interface ResolvedPersistence {
  readonly enabled: boolean;
  readonly required: boolean;
  readonly evidence: boolean;
  /** Days `prune()` keeps records; null keeps them forever. */
  readonly retentionDays: number | null;
}

/** The calibration options with their defaults applied. */
export interface ResolvedCalibration {
  /** Engine rounds a calibration run keeps in flight unless `.concurrency()` says otherwise. */
  readonly concurrency: number;
  /** The calibration lock's path as given (relative to the working directory), or null. */
  readonly lock: string | null;
  readonly onDrift: DriftPolicy;
  /** Audit rates by Decision name, each in [0, 1]. */
  readonly audit: Readonly<Record<string, number>>;
}

/** The limiter options with their defaults applied. */
export interface ResolvedLimiter {
  /** The ioredis client given; null to count per process; undefined when not given (the queue's Redis, if on). */
  readonly redis: object | null | undefined;
  /** Milliseconds an inline call waits for a slot. */
  readonly maxWaitMs: number;
  readonly prefix: string;
  readonly bulkShare: number;
}

/** How the queue rides out an outage: retried with growing waits for `retryFor` ms since it began, then failed. */
export interface OutagePolicy {
  readonly retryFor: number;
  readonly delay: number;
  readonly maxDelay: number;
}

/** The queue options with their defaults applied. */
export interface ResolvedQueueOptions {
  readonly enabled: boolean;
  readonly assessQueue: string;
  readonly decideQueue: string;
  readonly reviewQueue: string;
  readonly configKey: string | undefined;
  readonly attempts: number;
  readonly decideAttempts: number;
  readonly backoff: { readonly type: 'fixed' | 'exponential'; readonly delay: number };
  readonly concurrency: number;
  readonly decideConcurrency: number;
  readonly runWorkers: boolean;
  readonly workerOptions: JudgmentWorkerOptions;
  readonly pauseOnRateLimit: boolean;
  readonly outage: OutagePolicy;
}

/** The static extras with their defaults applied: resolved once when `forRoot()` builds the module. */
export interface ResolvedJudgmentExtras {
  readonly queue: ResolvedQueueOptions;
  /** The TypeORM data source name (undefined: the default one), or false for none. */
  readonly dataSource: string | false | undefined;
  /** The ResolutionPolicy class given statically, or null. */
  readonly resolutionPolicy: Type<object> | null;
  /** The Engine classes given statically (`driverClasses`). */
  readonly driverClasses: readonly Type<Engine>[];
}

/**
 * The module options and extras, checked and with the defaults of judgment.defaults.ts applied: built once per module
 * (`RESOLVED_JUDGMENT_OPTIONS`) and read by every service. Nothing reads the options as given after that.
 */
export interface ResolvedJudgmentOptions {
  /** The default connection's name; whether `engines` configures it is checked when it is built. */
  readonly defaultConnection: string;
  /** The connections as given: each one's driver checks and defaults its options when the connection is built. */
  readonly connections: Readonly<Record<string, EngineConnectionOptions>>;
  /** The drivers of the `drivers` option, by name. */
  readonly drivers: Readonly<Record<string, EngineFactory>>;
  readonly throwOnFailure: boolean;
  readonly persistence: ResolvedPersistence;
  readonly log: boolean;
  /** Refuse rounds whose questions name (in backticks) an Evidence path the Evidence does not have. */
  readonly strictEvidencePaths: boolean;
  /** The Evidence size limit of a round, in bytes of JSON (a Judgment's own `maxEvidenceBytes` wins). */
  readonly maxEvidenceBytes: number;
  /** The app's ResolutionPolicy class, or null (then every reviewer is refused). */
  readonly resolutionPolicy: Type<object> | null;
  readonly calibration: ResolvedCalibration;
  readonly limiter: ResolvedLimiter;
  /** Milliseconds between sweeps for Reviews past their deadline, or null for no sweep. */
  readonly reviewSweepInterval: number | null;
  /** The environment name (the option, else NODE_ENV when the options were resolved), or null. */
  readonly environment: string | null;
  readonly queue: ResolvedQueueOptions;
  /** The TypeORM data source name (undefined: the default one), or false for none. */
  readonly dataSource: string | false | undefined;
}

const DRIFT_POLICIES: readonly DriftPolicy[] = ['review', 'warn', 'off'];

/**
 * Checks the module options and applies the defaults of judgment.defaults.ts: the one place they are read. A value
 * that cannot be used throws (InvalidConfiguration or one of its kind) naming the option and what it must be. The
 * connections are checked by their drivers when built, so that `judgment status` can still describe a broken one.
 */
export function resolveJudgmentOptions(
  options: JudgmentModuleOptions | undefined,
  extras: ResolvedJudgmentExtras = resolveJudgmentExtras({}),
): ResolvedJudgmentOptions {
  const given = section(options, 'JudgmentModule options', 'the module options') as JudgmentModuleOptions;
  const defaults = JUDGMENT_DEFAULTS;
  const persistence = section(given.persistence, 'persistence') as PersistenceOptions;
  const calibration = section(given.calibration, 'calibration') as CalibrationOptions;
  return Object.freeze({
    defaultConnection: defaultConnection(given),
    connections: Object.freeze({ ...(section(given.engines, 'engines') as Record<string, EngineConnectionOptions>) }),
    drivers: drivers(given.drivers),
    throwOnFailure: flag(given.throwOnFailure, 'throwOnFailure', defaults.throwOnFailure),
    persistence: Object.freeze({
      enabled: flag(persistence.enabled, 'persistence.enabled', defaults.persistence.enabled),
      required: flag(persistence.required, 'persistence.required', defaults.persistence.required),
      evidence: flag(persistence.evidence, 'persistence.evidence', defaults.persistence.evidence),
      retentionDays: retentionDays(persistence.retentionDays),
    }),
    log: flag(given.log, 'log', defaults.log),
    strictEvidencePaths: flag(given.strictEvidencePaths, 'strictEvidencePaths', defaults.strictEvidencePaths),
    maxEvidenceBytes: maxEvidenceBytes(given.maxEvidenceBytes),
    // forRoot() hands it over with the static extras; forRootAsync()'s factory may return it too (the module's wiring
    // refuses one that differs from the class given beside useFactory).
    resolutionPolicy:
      given.resolutionPolicy === undefined ? extras.resolutionPolicy : resolutionPolicy(given.resolutionPolicy),
    calibration: Object.freeze({
      concurrency: calibrationConcurrency(calibration.concurrency),
      lock: calibrationLock(calibration.lock),
      onDrift: driftPolicy(calibration.onDrift),
      audit: auditRates(calibration.audit),
    }),
    limiter: resolveLimiter(given.limiter),
    reviewSweepInterval: sweepInterval(
      (section(given.review, 'review') as NonNullable<JudgmentModuleOptions['review']>).sweepInterval,
      extras.queue.enabled,
    ),
    environment: environment(given.environment),
    queue: extras.queue,
    dataSource: extras.dataSource,
  });
}

/** Applies the defaults to the static extras (the queue's attempts and concurrency become whole numbers of at least 1). */
export function resolveJudgmentExtras(extras: JudgmentModuleExtras): ResolvedJudgmentExtras {
  if ('isGlobal' in (extras as object)) {
    throw new InvalidConfiguration(
      "JudgmentModule.forRoot() no longer takes isGlobal: its services are always global (like @nestjs/typeorm's " +
        'core module), so every module injects Judge. Remove isGlobal from the options.',
    );
  }
  const { dataSource } = extras;
  if (dataSource !== undefined && dataSource !== false && (typeof dataSource !== 'string' || dataSource === '')) {
    throw new InvalidConfiguration(
      `The module option dataSource must be the name of a TypeORM data source, or false for none; got ${describe(dataSource)}.`,
    );
  }
  return Object.freeze({
    queue: resolveQueueOptions(extras.queue),
    dataSource,
    resolutionPolicy: resolutionPolicy(extras.resolutionPolicy),
    driverClasses: driverClasses(extras.driverClasses),
  });
}

/** By default, a decide worker runs one job at once for every this many assess jobs (rounded up). */
const DECIDE_SHARE = 4;

/** Applies the queue defaults; attempts and concurrency are whole numbers of at least 1. */
export function resolveQueueOptions(given: JudgmentQueueOptions = {}): ResolvedQueueOptions {
  const defaults = JUDGMENT_DEFAULTS.queue;
  const options = checkedQueueOptions(given);
  const concurrency = atLeastOne(options.concurrency, defaults.concurrency);
  return Object.freeze({
    enabled: options.enabled ?? defaults.enabled,
    assessQueue: options.assessQueue ?? defaults.assessQueue,
    decideQueue: options.decideQueue ?? defaults.decideQueue,
    reviewQueue: options.reviewQueue ?? defaults.reviewQueue,
    configKey: options.configKey,
    attempts: atLeastOne(options.attempts, defaults.attempts),
    decideAttempts: atLeastOne(options.decideAttempts, defaults.decideAttempts),
    backoff: options.backoff ?? { ...defaults.backoff },
    concurrency,
    decideConcurrency: atLeastOne(options.decideConcurrency, Math.ceil(concurrency / DECIDE_SHARE)),
    runWorkers: options.runWorkers ?? defaults.runWorkers,
    workerOptions: options.workerOptions ?? { ...defaults.workerOptions },
    pauseOnRateLimit: options.pauseOnRateLimit ?? defaults.pauseOnRateLimit,
    outage: {
      retryFor: atLeastOne(options.outage?.retryFor, defaults.outage.retryFor),
      delay: atLeastOne(options.outage?.delay, defaults.outage.delay),
      maxDelay: atLeastOne(options.outage?.maxDelay, defaults.outage.maxDelay),
    },
  });
}

/** Reads the module's `limiter` option; InvalidRateLimit names the option that is wrong. */
export function resolveLimiter(options: LimiterOptions | undefined): ResolvedLimiter {
  const given = section(options, 'limiter') as LimiterOptions;
  const defaults = JUDGMENT_DEFAULTS.limiter;
  const maxWait = given.maxWait ?? defaults.maxWait;
  if (typeof maxWait !== 'number' || !Number.isFinite(maxWait) || maxWait < 0) {
    throw new InvalidRateLimit(`limiter.maxWait must be a number of seconds of 0 or more; got ${String(maxWait)}.`);
  }
  const bulkShare = given.bulkShare ?? defaults.bulkShare;
  if (typeof bulkShare !== 'number' || !(bulkShare > 0 && bulkShare <= 1)) {
    throw new InvalidRateLimit(`limiter.bulkShare must be a number above 0 and at most 1; got ${String(bulkShare)}.`);
  }
  const prefix = given.prefix ?? defaults.prefix;
  if (typeof prefix !== 'string' || prefix === '') {
    throw new InvalidRateLimit(`limiter.prefix must be a non-empty string; got ${JSON.stringify(prefix)}.`);
  }
  const redis = given.redis;
  if (redis !== undefined && redis !== null && typeof (redis as { eval?: unknown }).eval !== 'function') {
    throw new InvalidRateLimit(
      'limiter.redis must be an ioredis client (new Redis(...)), or null to count per process.',
    );
  }
  return Object.freeze({ redis, maxWaitMs: Math.round(maxWait * 1000), prefix, bulkShare });
}

/**
 * The sweep interval in milliseconds, or null for no sweep: the option as given (1 second to 24 hours, or false),
 * else every minute with the queue off and never with it on. InvalidConfiguration for an unusable value.
 */
export function sweepInterval(given: unknown, queueEnabled: boolean): number | null {
  if (given === false) return null;
  if (given === undefined) return queueEnabled ? null : JUDGMENT_DEFAULTS.review.sweepInterval;
  const parsed = parseDuration(given, { min: 1000, max: 24 * 3600 * 1000, text: '1 second to 24 hours' });
  if ('problem' in parsed) {
    throw new InvalidConfiguration(`JudgmentModule option review.sweepInterval is unusable: ${parsed.problem}.`);
  }
  return parsed.ms;
}

function defaultConnection(options: JudgmentModuleOptions): string {
  const name: unknown = options.engine === undefined ? JUDGMENT_DEFAULTS.engine : options.engine;
  if (typeof name !== 'string' || name.trim() === '') {
    const configured = Object.keys(options.engines ?? {}).join(', ') || 'none';
    throw new EngineNotConfigured(
      'No default Engine connection is set. Set the engine option (JUDGMENT_ENGINE) to one of the connections ' +
        `in engines (${configured}).`,
    );
  }
  return name;
}

function drivers(value: unknown): Readonly<Record<string, EngineFactory>> {
  const given = section(value, 'drivers') as Record<string, unknown>;
  for (const [name, factory] of Object.entries(given)) {
    if (typeof factory !== 'function') {
      throw new InvalidConfiguration(
        `The module option drivers.${name} must be a factory (config, context) => Engine; got ${describe(factory)}.`,
      );
    }
  }
  return Object.freeze({ ...(given as Record<string, EngineFactory>) });
}

function retentionDays(value: unknown): number | null {
  if (value === undefined) return JUDGMENT_DEFAULTS.persistence.retentionDays;
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidConfiguration(
      `The module option persistence.retentionDays must be a number of days of 0 or more, or null to keep records ` +
        `forever; got ${describe(value)}.`,
    );
  }
  return value;
}

function resolutionPolicy(value: unknown): Type<object> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'function' || typeof value.prototype?.canResolve !== 'function') {
    throw new InvalidConfiguration(
      'JudgmentModule option resolutionPolicy must be a class implementing ResolutionPolicy ' +
        '(a canResolve(reviewer, record) method).',
    );
  }
  return value as Type<object>;
}

function driverClasses(value: unknown): readonly Type<Engine>[] {
  if (value === undefined || value === null) return Object.freeze([]);
  for (const cls of Array.isArray(value) ? value : [value]) {
    if (!Array.isArray(value) || !isEngineClass(cls)) {
      throw new InvalidConfiguration(
        'The module extra driverClasses must be a list of Engine classes (classes with an answer(request) method), ' +
          `e.g. [KeywordEngine]; got ${describe(cls)}.`,
      );
    }
  }
  return Object.freeze([...(value as Type<Engine>[])]);
}

/** Whether `value` is a class whose instances answer like an Engine (what a connection's `driver` may name). */
export function isEngineClass(value: unknown): value is Type<Engine> {
  return typeof value === 'function' && typeof value.prototype?.answer === 'function';
}

function maxEvidenceBytes(value: unknown): number {
  if (value === undefined) return JUDGMENT_DEFAULTS.maxEvidenceBytes;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidConfiguration(
      `The module option maxEvidenceBytes must be a whole number of bytes above 0 (default ` +
        `${JUDGMENT_DEFAULTS.maxEvidenceBytes}); got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function calibrationConcurrency(value: unknown): number {
  if (value === undefined) return JUDGMENT_DEFAULTS.calibration.concurrency;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidCalibration(
      `The module option calibration.concurrency must be a whole number of cases of 1 or more; got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function calibrationLock(value: unknown): string | null {
  if (value === undefined || value === null) return JUDGMENT_DEFAULTS.calibration.lock;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidConfiguration(
      `The module option calibration.lock must be the path of a calibration lock file; got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function driftPolicy(value: unknown): DriftPolicy {
  if (value === undefined) return JUDGMENT_DEFAULTS.calibration.onDrift;
  if (!DRIFT_POLICIES.includes(value as DriftPolicy)) {
    throw new InvalidConfiguration(
      `The module option calibration.onDrift must be 'review', 'warn' or 'off'; got ${JSON.stringify(value)}.`,
    );
  }
  return value as DriftPolicy;
}

function auditRates(value: unknown): Readonly<Record<string, number>> {
  if (value === undefined) return JUDGMENT_DEFAULTS.calibration.audit;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidConfiguration(
      'The module option calibration.audit must be an object of shares by Decision name, e.g. { RefundDecision: 0.02 }.',
    );
  }
  for (const [decision, rate] of Object.entries(value)) {
    if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) {
      throw new InvalidConfiguration(
        `The module option calibration.audit.${decision} must be a share in [0, 1]; got ${JSON.stringify(rate)}.`,
      );
    }
  }
  return Object.freeze({ ...(value as Record<string, number>) });
}

function environment(value: unknown): string | null {
  if (value === undefined) return process.env.NODE_ENV ?? null;
  if (typeof value !== 'string') {
    throw new InvalidConfiguration(
      `The module option environment must be the environment's name, such as 'production'; got ${describe(value)}.`,
    );
  }
  return value;
}

/** A boolean option, or its default when unset. */
function flag(value: unknown, option: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new InvalidConfiguration(
      `The module option ${option} must be true or false; got ${describe(value)}. (judgmentOptionsFromEnv() reads ` +
        "the variables' true/false, 1/0, yes/no and on/off.)",
    );
  }
  return value;
}

/** A group of options (`persistence`, `calibration`...): an object, or `{}` when unset. */
function section(value: unknown, option: string, what = `The module option ${option}`): object {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidConfiguration(`${capitalised(what)} must be an object; got ${describe(value)}.`);
  }
  return value;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function atLeastOne(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(1, Math.trunc(value)) : fallback;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return `the function ${value.name || '(anonymous)'}`;
  return typeof value === 'object' ? (Array.isArray(value) ? 'an array' : 'an object') : String(value);
}

/**
 * The `queue` extra, each option checked for its kind (InvalidConfiguration names it): booleans, non-empty queue
 * names, numbers (below 1 count as 1, NaN takes the default), the backoff, the worker options. Unset options stay unset for the defaults.
 */
function checkedQueueOptions(given: unknown): JudgmentQueueOptions {
  const options = section(given, 'queue', 'The module extra queue') as JudgmentQueueOptions;
  for (const option of ['enabled', 'runWorkers', 'pauseOnRateLimit'] as const) {
    flag(options[option], `queue.${option}`, false);
  }
  for (const option of ['assessQueue', 'decideQueue', 'reviewQueue', 'configKey'] as const) {
    const value: unknown = options[option];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
      throw new InvalidConfiguration(
        `The module option queue.${option} must be a non-empty string; got ${describe(value)}.`,
      );
    }
  }
  const outage = options.outage === undefined ? {} : section(options.outage, 'queue.outage');
  const numbers: Array<[string, unknown]> = [
    ['attempts', options.attempts],
    ['decideAttempts', options.decideAttempts],
    ['concurrency', options.concurrency],
    ['decideConcurrency', options.decideConcurrency],
    ...Object.entries(outage).map(([key, value]): [string, unknown] => [`outage.${key}`, value]),
  ];
  for (const [option, value] of numbers) {
    if (value !== undefined && typeof value !== 'number') {
      throw new InvalidConfiguration(`The module option queue.${option} must be a number; got ${describe(value)}.`);
    }
  }
  if (options.backoff !== undefined) {
    const backoff = section(options.backoff, 'queue.backoff') as { type?: unknown; delay?: unknown };
    if (backoff.type !== 'fixed' && backoff.type !== 'exponential') {
      throw new InvalidConfiguration(
        `The module option queue.backoff.type must be 'fixed' or 'exponential'; got ${describe(backoff.type)}.`,
      );
    }
    if (typeof backoff.delay !== 'number' || !Number.isFinite(backoff.delay) || backoff.delay < 0) {
      throw new InvalidConfiguration(
        `The module option queue.backoff.delay must be milliseconds (a number of 0 or more); got ${describe(backoff.delay)}.`,
      );
    }
  }
  if (options.workerOptions !== undefined) section(options.workerOptions, 'queue.workerOptions');
  return options;
}
