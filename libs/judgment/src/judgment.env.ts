import { DEFAULT_JEV_URL } from './engines/jev/jev.engine';
import { perMinuteFromEnv } from './engines/limits/connection-limits';
import { DEFAULT_OPENAI_URL } from './engines/openai/openai.engine';
import { DEFAULT_MOCK_MODEL } from './engines/mock/mock.engine';
import { InvalidConfiguration } from './errors';
import {
  DEFAULT_CONNECTION,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  JUDGMENT_DEFAULTS,
} from './judgment.defaults';
import type { ConnectionLimits, EngineConnectionOptions, JudgmentModuleOptions } from './judgment.options';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Module options from environment variables (SPEC §4). Unset variables take their defaults; an invalid value throws
 * InvalidConfiguration naming the variable, so the app fails at startup. Only the connections the environment names
 * are configured: the default one (JUDGMENT_ENGINE, else jev), and any whose variables are set (CONNECTION_VARIABLES).
 */
export function judgmentOptionsFromEnv(env: Env = process.env): JudgmentModuleOptions {
  const read = new EnvReader(env);
  const engine = read.string('JUDGMENT_ENGINE') ?? DEFAULT_CONNECTION;
  const budget = read.integer('JUDGMENT_BUDGET', { min: 0 }) ?? null;
  const engines: Record<string, EngineConnectionOptions> = {};
  for (const [name, connection] of Object.entries(CONNECTIONS)) {
    const named = name === engine || CONNECTION_VARIABLES[name].some((prefix) => read.anyWithPrefix(prefix));
    if (named) engines[name] = connection(read, budget);
  }
  return {
    engine,
    engines,
    throwOnFailure: read.boolean('JUDGMENT_THROW_ON_FAILURE') ?? true,
    persistence: {
      enabled: read.boolean('JUDGMENT_PERSIST') ?? true,
      required: read.boolean('JUDGMENT_PERSIST_REQUIRED') ?? true,
      evidence: read.boolean('JUDGMENT_PERSIST_EVIDENCE') ?? true,
      retentionDays: read.retention('JUDGMENT_RETENTION_DAYS'),
    },
    log: read.boolean('JUDGMENT_LOG') ?? true,
    strictEvidencePaths: read.boolean('JUDGMENT_STRICT_EVIDENCE_PATHS') ?? false,
    maxEvidenceBytes: read.integer('JUDGMENT_MAX_EVIDENCE_BYTES', { min: 1 }) ?? JUDGMENT_DEFAULTS.maxEvidenceBytes,
    ...(read.string('JUDGMENT_LIMIT_MAX_WAIT') !== undefined
      ? { limiter: { maxWait: read.number('JUDGMENT_LIMIT_MAX_WAIT', { min: 0 }) } }
      : {}),
    environment: read.string('NODE_ENV'),
  };
}

/** The built-in connections the environment can configure. */
const CONNECTIONS: Readonly<Record<string, (read: EnvReader, budget: number | null) => EngineConnectionOptions>> = {
  jev: (read, budget) => ({
    driver: 'jev',
    key: read.string('TYPESAFE_API_KEY') ?? null,
    url: read.string('TYPESAFE_BASE_URL') ?? DEFAULT_JEV_URL,
    model: read.string('JUDGMENT_JEV_MODEL') ?? 'jev-1.13.0',
    allowAliases: read.boolean('JUDGMENT_JEV_ALLOW_ALIASES') ?? false,
    timeout: read.number('JUDGMENT_JEV_TIMEOUT', { min: 0, exclusiveMin: true }) ?? DEFAULT_TIMEOUT_SECONDS,
    retries: read.integer('JUDGMENT_JEV_RETRIES', { min: 0 }) ?? DEFAULT_RETRIES,
    budget,
    limits: read.limits('JUDGMENT_JEV_LIMIT'),
  }),
  laya: (read, budget) => ({
    driver: 'jev',
    key: read.string('LAYA_API_KEY') ?? null,
    requireKey: false,
    url: read.string('LAYA_BASE_URL') ?? 'http://localhost:8000',
    model: read.string('JUDGMENT_LAYA_MODEL') ?? 'english',
    allowAliases: read.boolean('JUDGMENT_LAYA_ALLOW_ALIASES') ?? false,
    timeout: read.number('JUDGMENT_LAYA_TIMEOUT', { min: 0, exclusiveMin: true }) ?? DEFAULT_TIMEOUT_SECONDS,
    retries: read.integer('JUDGMENT_LAYA_RETRIES', { min: 0 }) ?? DEFAULT_RETRIES,
    maxLabels: read.integer('JUDGMENT_LAYA_MAX_LABELS', { min: 2 }) ?? 20,
    budget,
    limits: read.limits('JUDGMENT_LAYA_LIMIT'),
  }),
  openai: (read, budget) => ({
    driver: 'openai',
    key: read.string('OPENAI_API_KEY') ?? null,
    url: read.string('OPENAI_BASE_URL') ?? DEFAULT_OPENAI_URL,
    model: read.string('JUDGMENT_OPENAI_MODEL'),
    allowAliases: read.boolean('JUDGMENT_OPENAI_ALLOW_ALIASES') ?? false,
    timeout: read.number('JUDGMENT_OPENAI_TIMEOUT', { min: 0, exclusiveMin: true }) ?? DEFAULT_TIMEOUT_SECONDS,
    retries: read.integer('JUDGMENT_OPENAI_RETRIES', { min: 0 }) ?? DEFAULT_RETRIES,
    maxConcurrency: read.integer('JUDGMENT_OPENAI_MAX_CONCURRENCY', { min: 1 }),
    minCoverage: read.number('JUDGMENT_OPENAI_MIN_COVERAGE', { min: 0, exclusiveMin: true }),
    temperatureScaling: read.number('JUDGMENT_OPENAI_TEMPERATURE_SCALING', { min: 0, exclusiveMin: true }) ?? null,
    apiVersion: read.string('JUDGMENT_OPENAI_API_VERSION') ?? null,
    budget,
    limits: read.limits('JUDGMENT_OPENAI_LIMIT'),
  }),
  mock: () => ({ driver: 'mock', model: DEFAULT_MOCK_MODEL }),
};

/** Prefixes of the variables that name a connection: any of them set configures it. mock has none. */
const CONNECTION_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  jev: ['TYPESAFE_', 'JUDGMENT_JEV_'],
  laya: ['LAYA_', 'JUDGMENT_LAYA_'],
  // Not OPENAI_: an app may hold OPENAI_API_KEY for other uses without asking Judgments of OpenAI.
  openai: ['JUDGMENT_OPENAI_'],
  mock: [],
};

/** Queue attempts from the environment (`JUDGMENT_QUEUE_TRIES`, `JUDGMENT_QUEUE_DECIDE_TRIES`), for the static extra. */
export function judgmentQueueAttemptsFromEnv(env: Env = process.env): { attempts: number; decideAttempts: number } {
  const read = new EnvReader(env);
  return {
    attempts: read.integer('JUDGMENT_QUEUE_TRIES', { min: 1 }) ?? 1,
    decideAttempts: read.integer('JUDGMENT_QUEUE_DECIDE_TRIES', { min: 1 }) ?? 3,
  };
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

class EnvReader {
  constructor(private readonly env: Env) {}

  string(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  /** Whether a variable whose name starts with `prefix` is set (blank counts as unset). */
  anyWithPrefix(prefix: string): boolean {
    return Object.keys(this.env).some((name) => name.startsWith(prefix) && this.string(name) !== undefined);
  }

  boolean(name: string): boolean | undefined {
    const value = this.string(name)?.toLowerCase();
    if (value === undefined) return undefined;
    if (TRUE.includes(value)) return true;
    if (FALSE.includes(value)) return false;
    throw new InvalidConfiguration(
      `${name} must be true or false (also 1/0, yes/no, on/off); got "${this.env[name]}".`,
    );
  }

  number(name: string, range: { min: number; exclusiveMin?: boolean }): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    const tooSmall = range.exclusiveMin ? value <= range.min : value < range.min;
    if (!/^[-+]?(\d+\.?\d*|\.\d+)$/.test(raw) || !Number.isFinite(value) || tooSmall) {
      throw new InvalidConfiguration(
        `${name} must be a number ${range.exclusiveMin ? 'above' : 'of at least'} ${range.min}; got "${raw}".`,
      );
    }
    return value;
  }

  integer(name: string, range: { min: number }): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < range.min) {
      throw new InvalidConfiguration(`${name} must be a whole number of at least ${range.min}; got "${raw}".`);
    }
    return Number(raw);
  }

  /**
   * A connection's limits from `<prefix>_REQUESTS`, `<prefix>_TOKENS` (each with its unit: `1200/min`, `20/s`) and
   * `<prefix>_WINDOW` (seconds) and `<prefix>_BURST` (the account's request bucket); null when none is set.
   */
  limits(prefix: string): ConnectionLimits | null {
    const per = (name: string) => {
      const raw = this.string(name);
      return raw === undefined ? undefined : perMinuteFromEnv(name, raw);
    };
    const limits: ConnectionLimits = {
      requestsPerMinute: per(`${prefix}_REQUESTS`),
      tokensPerMinute: per(`${prefix}_TOKENS`),
      windowSeconds: this.integer(`${prefix}_WINDOW`, { min: 1 }),
      burst: this.integer(`${prefix}_BURST`, { min: 1 }),
    };
    const set = Object.entries(limits).filter(([, value]) => value !== undefined);
    return set.length === 0 ? null : Object.fromEntries(set);
  }

  /** Days, or `null`/`forever`/`never` to keep records forever. */
  retention(name: string): number | null {
    const raw = this.string(name);
    if (raw !== undefined && ['null', 'forever', 'never'].includes(raw.toLowerCase())) return null;
    return this.integer(name, { min: 1 }) ?? DEFAULT_RETENTION_DAYS;
  }
}
