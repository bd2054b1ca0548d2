// The defaults of the module options, in one place: what an option is when the app does not set it. The README's
// Configuration section lists the same values, and judgment.defaults.spec.ts reads its tables against this file.
//
// To add an option: its type in judgment.options.ts (JudgmentModuleOptions), its default here, its check and default
// in resolveJudgmentOptions(), its field in ResolvedJudgmentOptions, and its row in the README's module-option table.

/** The module options' defaults, by option (`connection` holds the defaults of every `engines.<name>`). */
export const JUDGMENT_DEFAULTS = {
  /** The default connection (`JUDGMENT_ENGINE`). */
  engine: 'jev',
  throwOnFailure: true,
  log: true,
  strictEvidencePaths: false,
  /**
   * Largest Evidence of one round, in UTF-8 bytes of its canonical JSON (`JUDGMENT_MAX_EVIDENCE_BYTES`): 1 MiB, above
   * what Jev reads in one round even in its long-context mode (about 262k tokens).
   */
  maxEvidenceBytes: 1_048_576,
  persistence: {
    enabled: true,
    required: true,
    evidence: true,
    /** Days `prune()` keeps records (`JUDGMENT_RETENTION_DAYS`); null keeps them forever. */
    retentionDays: 365 as number | null,
  },
  calibration: {
    /** Engine rounds a Calibration run keeps in flight. */
    concurrency: 8,
    lock: null as string | null,
    onDrift: 'review' as 'review' | 'warn' | 'off',
    audit: {} as Readonly<Record<string, number>>,
  },
  limiter: {
    /** Seconds an inline call waits for a slot under a connection's `limits`. */
    maxWait: 10,
    prefix: 'judgment:limits',
    bulkShare: 0.5,
  },
  review: {
    /** Milliseconds between sweeps for expired Reviews with the queue off (with it on, each deadline is a job). */
    sweepInterval: 60_000,
  },
  /** Of each connection (`engines.<name>.…`); a driver's own options (its URL, its model) are the driver's. */
  connection: {
    driver: 'jev',
    /** Seconds per attempt. */
    timeout: 10,
    /** Retries of 429 and 529 answers. */
    retries: 3,
    /** Largest response body read, in bytes: 4 MiB. */
    maxResponseBytes: 4 * 1024 * 1024,
    /** Seconds per counting window of `limits`. */
    limitWindowSeconds: 60,
    /** The currency of a `price` that names none. */
    priceCurrency: 'USD',
  },
  queue: {
    enabled: false,
    assessQueue: 'judgment-assess',
    decideQueue: 'judgment-decide',
    reviewQueue: 'judgment-review',
    attempts: 1,
    decideAttempts: 3,
    backoff: { type: 'exponential' as 'fixed' | 'exponential', delay: 1000 },
    concurrency: 1,
    runWorkers: true,
    workerOptions: {} as Readonly<Record<string, unknown>>,
    pauseOnRateLimit: true,
    outage: { retryFor: 600_000, delay: 1000, maxDelay: 30_000 },
  },
} as const;

/** The default connection (`engine` option, `JUDGMENT_ENGINE`). */
export const DEFAULT_CONNECTION = JUDGMENT_DEFAULTS.engine;
/** The driver a connection uses when its options name none. */
export const DEFAULT_DRIVER = JUDGMENT_DEFAULTS.connection.driver;
/** Days `prune()` keeps records (`persistence.retentionDays`, `JUDGMENT_RETENTION_DAYS`). */
export const DEFAULT_RETENTION_DAYS = JUDGMENT_DEFAULTS.persistence.retentionDays;
/** Cases a Calibration run asks at once (`calibration.concurrency`). */
export const DEFAULT_CALIBRATION_CONCURRENCY = JUDGMENT_DEFAULTS.calibration.concurrency;
/** Seconds one attempt may take when a connection sets no `timeout`. */
export const DEFAULT_TIMEOUT_SECONDS = JUDGMENT_DEFAULTS.connection.timeout;
/** Retries of 429/529 answers when a connection sets no `retries`. */
export const DEFAULT_RETRIES = JUDGMENT_DEFAULTS.connection.retries;
/** The largest response body a driver reads when a connection sets no `maxResponseBytes`: 4 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = JUDGMENT_DEFAULTS.connection.maxResponseBytes;
/** Seconds per counting window when a connection's limits set none. */
export const DEFAULT_LIMIT_WINDOW_SECONDS = JUDGMENT_DEFAULTS.connection.limitWindowSeconds;
