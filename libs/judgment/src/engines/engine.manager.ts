import { inspect } from 'node:util';
import { Logger, type Type } from '@nestjs/common';
import { EngineNotConfigured, InvalidRateLimit, UnpinnedModel } from '../errors';
import { DEFAULT_CONNECTION, DEFAULT_DRIVER } from '../judgment.defaults';
import type { EngineConnectionOptions, JudgmentModuleOptions } from '../judgment.options';
import { logEntry } from '../logging/judgment.logger';
import { connectionSettings, DEFAULT_RETRIES, DEFAULT_TIMEOUT_SECONDS } from './connection.settings';
import type { Engine } from './engine.interface';
import { DEFAULT_JEV_URL, JevEngine } from './jev/jev.engine';
import {
  type ResolvedLimiter,
  type ResolvedLimits,
  connectionLimits,
  resolveLimiter,
} from './limits/connection-limits';
import { ConnectionLimiter } from './limits/connection.limiter';
import { RateLimitedEngine } from './limits/rate-limited.engine';
import { DEFAULT_OPENAI_URL, OpenAiEngine } from './openai/openai.engine';
import { MeteredEngine, UsageMeter } from './metering';
import { MockEngine } from './mock/mock.engine';

/** What a driver factory is given besides the connection's options. */
export interface EngineFactoryContext {
  /** The connection name. */
  readonly name: string;
  /** The module options. */
  readonly options: JudgmentModuleOptions;
  /** Aborts when the app shuts down: a driver cancels its retry waits and sends nothing more. */
  readonly shutdown: AbortSignal;
}

/** Builds a connection's Engine from its options (`engines.<name>`). */
export type EngineFactory = (config: EngineConnectionOptions, context: EngineFactoryContext) => Engine;

/** A connection's status for the `status` command: configuration only, never the key, no network. */
export interface EngineConnectionStatus {
  readonly connection: string;
  /** Driver name, or the Engine class name. */
  readonly driver: string;
  readonly url: string | null;
  readonly model: string | null;
  /** Whether the model is an exact version (ends in N.N.N) rather than an alias. */
  readonly pinned: boolean;
  readonly keyPresent: boolean;
  /** Seconds per attempt. */
  readonly timeout: number;
  readonly retries: number;
  readonly maxLabels: number | null;
  readonly budget: number | null;
  /** The connection's rate limits, null when it has none (or they are misconfigured: see `problem`). */
  readonly limits: ResolvedLimits | null;
  /** Where the limits are counted: `redis` (every process) or `process` (this one only); null without limits. */
  readonly limitStore: 'redis' | 'process' | null;
  /** Input tokens spent on the connection by this process. */
  readonly used: number;
  /** Whether the connection builds: false when it is misconfigured (see `problem`). */
  readonly configured: boolean;
  /** Why the connection cannot be used, or null. */
  readonly problem: string | null;
}

const BUILT_IN_DRIVERS: Readonly<Record<string, EngineFactory>> = {
  jev: (config, { name, shutdown }) => JevEngine.connect(name, config, undefined, shutdown),
  openai: (config, { name, shutdown }) => OpenAiEngine.connect(name, config, undefined, shutdown),
  mock: (config) => new MockEngine(typeof config.model === 'string' && config.model !== '' ? config.model : undefined),
};

/** Drivers registered for every manager with the static `EngineManager.extend()`. */
const globalDrivers = new Map<string, EngineFactory>();

/** Where the connections' limits are counted, given by the module: a Redis client, and whether the queue is on. */
export interface LimitSharing {
  /** The ioredis client the module found (limiter.redis, else the queue's Redis); null for none. */
  readonly redis: object | null;
  /** The queue is enabled: limits then must be shared through Redis. */
  readonly queueEnabled: boolean;
}

/**
 * Whether a model is an exact version: it ends in three dot-separated numbers (`jev-1.13.0`, not `jev-latest`) or in
 * a snapshot date (`gpt-4o-2024-08-06`, not `gpt-4o`).
 */
export function isPinnedModel(model: string): boolean {
  return /(\d+\.\d+\.\d+|\d{4}-\d{2}-\d{2})$/.test(model);
}

/**
 * Builds and caches the Engine of each configured connection, checking its configuration, and meters every
 * connection's token usage against its budget.
 */
export class EngineManager {
  private readonly drivers = new Map<string, EngineFactory>();
  private readonly engines = new Map<string, MeteredEngine>();
  private readonly meter = new UsageMeter();
  private readonly limiters = new Map<string, ConnectionLimiter>();
  private readonly logger = new Logger('Judgment');
  private readonly closing = new AbortController();

  constructor(
    private readonly options: JudgmentModuleOptions,
    /** Instantiates Engine-class drivers (the module resolves them through DI); default `new`. */
    private readonly resolveClass: (engineClass: Type<Engine>) => Engine = (engineClass) => new engineClass(),
    private readonly sharing: LimitSharing = { redis: null, queueEnabled: false },
  ) {}

  /** What the manager shows when logged or serialised: its connections' names, never their options (keys). */
  toJSON(): { defaultConnection: string | null; connections: string[] } {
    const { engine, engines } = this.options;
    return {
      defaultConnection: engine === undefined ? DEFAULT_CONNECTION : engine,
      connections: Object.keys(engines ?? {}),
    };
  }

  [inspect.custom](): string {
    return `EngineManager ${JSON.stringify(this.toJSON())}`;
  }

  /**
   * Tells every connection the app is shutting down: retry waits are cancelled (EngineCallInterrupted) and no new
   * request is sent, so closing never waits out a 429's retry-after. Called when the module is destroyed, and first
   * by the queue's workers before they close.
   */
  shutdown(): void {
    this.closing.abort();
  }

  onModuleDestroy(): void {
    this.shutdown();
  }

  /** Registers a driver for every EngineManager (e.g. before the module starts). */
  static extend(driver: string, factory: EngineFactory): void {
    globalDrivers.set(driver, factory);
  }

  /** Registers a driver for this manager; it wins over global and built-in drivers of the same name. */
  extend(driver: string, factory: EngineFactory): this {
    this.drivers.set(driver, factory);
    return this;
  }

  /** The default connection's name: options.engine, else `jev`. */
  defaultConnectionName(): string {
    const name = this.options.engine === undefined ? DEFAULT_CONNECTION : this.options.engine;
    if (typeof name !== 'string' || name.trim() === '') {
      throw new EngineNotConfigured(
        'No default Engine connection is set. Set the engine option (JUDGMENT_ENGINE) to one of the connections ' +
          `in engines (${this.connectionNames()}).`,
      );
    }
    return name;
  }

  /** A connection's Engine (default connection when unnamed), built and checked on first use, then cached. */
  connection(name: string = this.defaultConnectionName()): Engine {
    let engine = this.engines.get(name);
    if (!engine) {
      engine = this.build(name);
      this.engines.set(name, engine);
    }
    return engine;
  }

  /** Builds the named connections now, so configuration errors surface at startup. */
  validate(names: Iterable<string>): void {
    for (const name of names) this.connection(name);
  }

  /** Input tokens this process spent on one connection, or on all of them. */
  usage(connection?: string): number {
    return this.meter.usage(connection);
  }

  /** The rate limiter of a connection with `limits` (built with its Engine), or null. */
  limiter(name: string = this.defaultConnectionName()): ConnectionLimiter | null {
    this.connection(name);
    return this.limiters.get(name) ?? null;
  }

  /** The versioned model id that answered last; null before any answer. */
  lastModel(): string | null {
    return this.meter.lastModel();
  }

  /** A connection's configuration status (default connection when unnamed); never the key; no network. */
  describe(name: string = this.defaultConnectionName()): EngineConnectionStatus {
    const config = this.config(name);
    let problem: string | null = null;
    let model = typeof config.model === 'string' && config.model !== '' ? config.model : null;
    try {
      model = this.connection(name).model();
    } catch (error) {
      if (!(
        error instanceof EngineNotConfigured ||
        error instanceof UnpinnedModel ||
        error instanceof InvalidRateLimit
      )) {
        throw error;
      }
      problem = error.message;
    }
    const driver = config.driver ?? DEFAULT_DRIVER;
    const limiter = this.limiters.get(name) ?? null;
    return {
      connection: name,
      driver: typeof driver === 'string' ? driver : driver.name,
      url: config.url
        ? String(config.url).replace(/\/+$/, '')
        : driver === 'jev'
          ? DEFAULT_JEV_URL
          : driver === 'openai'
            ? DEFAULT_OPENAI_URL
            : null,
      model,
      pinned: model !== null && isPinnedModel(model),
      keyPresent: typeof config.key === 'string' && config.key !== '',
      timeout: config.timeout ?? DEFAULT_TIMEOUT_SECONDS,
      retries: config.retries ?? DEFAULT_RETRIES,
      maxLabels: config.maxLabels ?? null,
      budget: config.budget ?? null,
      limits: limiter?.limits ?? null,
      limitStore: limiter?.store ?? null,
      used: this.usage(name),
      configured: problem === null,
      problem,
    };
  }

  private build(name: string): MeteredEngine {
    const config = this.config(name);
    const { budget } = connectionSettings(name, config);
    const limits = connectionLimits(name, config);
    const sharing = limits ? this.limitSharing(name) : null;
    const engine = this.driver(name, config)(config, { name, options: this.options, shutdown: this.closing.signal });
    this.checkPinned(name, engine.model(), config.allowAliases === true);
    if (!limits || !sharing) return new MeteredEngine(name, engine, budget, this.meter);
    const limiter = new ConnectionLimiter(name, limits, sharing, sharing.redis === null ? 'process' : 'redis');
    this.limiters.set(name, limiter);
    return new MeteredEngine(name, new RateLimitedEngine(engine, limiter), budget, this.meter);
  }

  /** The limiter options of a connection with limits; the queue needs Redis to share them. */
  private limitSharing(name: string): ResolvedLimiter {
    const given = this.options.limiter;
    const limiter = resolveLimiter({ ...given, redis: given?.redis === undefined ? this.sharing.redis : given.redis });
    if (limiter.redis === null && this.sharing.queueEnabled) {
      throw new InvalidRateLimit(
        `engines.${name}.limits is set and the queue is enabled, but no Redis is given to share the limits between ` +
          'processes (limiter.redis is null). Set limiter.redis to an ioredis client, or leave it unset to use the ' +
          "queue's Redis.",
      );
    }
    if (limiter.redis === null) {
      this.logger.warn(
        logEntry(
          'The Engine connection has limits but no Redis to share them: they are counted in this process only, so ' +
            'N processes may send N times the limit. Set limiter.redis to share them.',
          { connection: name },
        ),
      );
    }
    return limiter;
  }

  private config(name: string): EngineConnectionOptions {
    const config = Object.hasOwn(this.options.engines ?? {}, name) ? this.options.engines?.[name] : undefined;
    if (config === null || typeof config !== 'object') {
      throw new EngineNotConfigured(
        `The Engine connection "${name}" is not configured: engines has no "${name}" entry (configured: ` +
          `${this.connectionNames()}). Add engines.${name} to the module options, or name a configured connection.`,
      );
    }
    return config;
  }

  private driver(name: string, config: EngineConnectionOptions): EngineFactory {
    const driver = config.driver ?? DEFAULT_DRIVER;
    if (typeof driver === 'function' && typeof driver.prototype?.answer === 'function') {
      return () => this.resolveClass(driver);
    }
    const factory =
      typeof driver === 'string'
        ? (this.drivers.get(driver) ??
          globalDrivers.get(driver) ??
          (Object.hasOwn(BUILT_IN_DRIVERS, driver) ? BUILT_IN_DRIVERS[driver] : undefined))
        : undefined;
    if (!factory) {
      const named = typeof driver === 'function' ? `class ${driver.name}` : JSON.stringify(driver);
      throw new EngineNotConfigured(
        `The Engine connection "${name}" names the driver ${named}, which is neither a built-in driver (jev, openai, mock), ` +
          'a driver registered with EngineManager.extend(), nor a class implementing Engine. Fix ' +
          `engines.${name}.driver, or register the driver before the connection is first used.`,
      );
    }
    return factory;
  }

  /** An alias model may move beneath calibrated thresholds: refused in production, warned about elsewhere. */
  private checkPinned(connection: string, model: string, allowAliases: boolean): void {
    if (isPinnedModel(model) || allowAliases) return;
    const environment = this.options.environment ?? process.env.NODE_ENV;
    if (environment === 'production') {
      throw new UnpinnedModel(
        `The Engine connection "${connection}" asks the model "${model}", an alias rather than an exact version, in ` +
          'production: the model behind it can change beneath calibrated thresholds. Pin an exact version such as ' +
          `"jev-1.13.0" in engines.${connection}.model, or set engines.${connection}.allowAliases to accept the alias.`,
      );
    }
    // Written even when `log` is false: it warns about configuration, like an error would.
    this.logger.warn(
      logEntry('The Engine model is an alias, not an exact version: pin one before calibrating thresholds.', {
        connection,
        model,
      }),
    );
  }

  private connectionNames(): string {
    return Object.keys(this.options.engines ?? {}).join(', ') || 'none';
  }
}
