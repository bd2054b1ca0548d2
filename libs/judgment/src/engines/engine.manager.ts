import { inspect } from 'node:util';
import type { Type } from '@nestjs/common';
import { EngineNotConfigured, InvalidConfiguration, InvalidPrice, InvalidRateLimit, UnpinnedModel } from '../errors';
import { DEFAULT_DRIVER } from '../judgment.defaults';
import type { EngineConnectionOptions, EngineFactory, ResolvedJudgmentOptions } from '../judgment.options';
import { JudgmentLogger } from '../logging/judgment.logger';
import { BUILT_IN_DRIVERS } from './built-in.drivers';
import { type ConnectionSettings, connectionSettings } from './connection.settings';
import type { Engine } from './engine.interface';
import { type LimitSharing, type ResolvedLimits, connectionLimits } from './limits/connection-limits';
import { ConnectionLimiter } from './limits/connection.limiter';
import { RateLimitedEngine } from './limits/rate-limited.engine';
import { MeteredEngine, UsageMeter } from './metering';
import { type ResolvedPrice, connectionPrice } from './pricing/connection-price';

export type { EngineFactory, EngineFactoryContext } from '../judgment.options';

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
  /** What the connection charges (`price`), null when it declares none (or it is misconfigured: see `problem`). */
  readonly price: ResolvedPrice | null;
  /** Input tokens spent on the connection by this process. */
  readonly used: number;
  /** Whether the connection builds: false when it is misconfigured (see `problem`). */
  readonly configured: boolean;
  /** Why the connection cannot be used, or null. */
  readonly problem: string | null;
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
 * connection's token usage against its budget. It reads the resolved module options and keeps no defaults of its own.
 */
export class EngineManager {
  private readonly drivers = new Map<string, EngineFactory>();
  private readonly engines = new Map<string, MeteredEngine>();
  private readonly meter = new UsageMeter();
  private readonly limiters = new Map<string, ConnectionLimiter>();
  private readonly prices = new Map<string, ResolvedPrice | null>();
  private readonly closing = new AbortController();

  constructor(
    private readonly options: ResolvedJudgmentOptions,
    /** Instantiates Engine-class drivers (the module resolves them through DI); default `new`. */
    private readonly resolveClass: (engineClass: Type<Engine>) => Engine = (engineClass) => new engineClass(),
    /** The Redis client the queue provides for the limits when `limiter.redis` is not given; null for none. */
    private readonly queueRedis: object | null = null,
    private readonly logger: JudgmentLogger = new JudgmentLogger(options),
  ) {
    for (const [driver, factory] of Object.entries(options.drivers)) this.drivers.set(driver, factory);
  }

  /** What the manager shows when logged or serialised: its connections' names, never their options (keys). */
  toJSON(): { defaultConnection: string; connections: string[] } {
    return { defaultConnection: this.options.defaultConnection, connections: Object.keys(this.options.connections) };
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

  /**
   * Gone: drivers are no longer registered for every manager at once. Give them in the module option `drivers`, or
   * register one on the app's manager with the instance method `extend()`. Throws InvalidConfiguration saying so.
   */
  static extend(driver: string, _factory: EngineFactory): never {
    throw new InvalidConfiguration(
      `EngineManager.extend('${driver}', ...) no longer registers a driver for every manager: give it in the module ` +
        `option drivers instead: JudgmentModule.forRoot({ drivers: { ${JSON.stringify(driver)}: factory }, ... }).`,
    );
  }

  /** Registers a driver for this manager; it wins over the `drivers` option and the built-in drivers of that name. */
  extend(driver: string, factory: EngineFactory): this {
    this.drivers.set(driver, factory);
    return this;
  }

  /** The default connection's name: the `engine` option, else `jev`. */
  defaultConnectionName(): string {
    return this.options.defaultConnection;
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

  /** What a connection charges (its checked `price`, built with its Engine), or null when it declares none. */
  price(name: string = this.defaultConnectionName()): ResolvedPrice | null {
    this.connection(name);
    return this.prices.get(name) ?? null;
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
        error instanceof InvalidRateLimit ||
        error instanceof InvalidPrice
      )) {
        throw error;
      }
      problem = error.message;
    }
    const driver = config.driver ?? DEFAULT_DRIVER;
    const builtIn =
      typeof driver === 'string' && Object.hasOwn(BUILT_IN_DRIVERS, driver) ? BUILT_IN_DRIVERS[driver] : null;
    const limiter = this.limiters.get(name) ?? null;
    const settings = readableSettings(name, config);
    return {
      connection: name,
      driver: typeof driver === 'string' ? driver : driver.name,
      url: config.url ? String(config.url).replace(/\/+$/, '') : (builtIn?.url ?? null),
      model,
      pinned: model !== null && isPinnedModel(model),
      keyPresent: typeof config.key === 'string' && config.key !== '',
      timeout: settings.timeout,
      retries: settings.retries,
      maxLabels: settings.maxLabels,
      budget: settings.budget,
      limits: limiter?.limits ?? null,
      limitStore: limiter?.store ?? null,
      price: this.prices.get(name) ?? null,
      used: this.usage(name),
      configured: problem === null,
      problem,
    };
  }

  private build(name: string): MeteredEngine {
    const config = this.config(name);
    const { budget } = connectionSettings(name, config);
    const limits = connectionLimits(name, config);
    this.prices.set(name, connectionPrice(name, config));
    const sharing = limits ? this.limitSharing(name) : null;
    const engine = this.driver(name, config)(config, { name, options: this.options, shutdown: this.closing.signal });
    this.checkPinned(name, engine.model(), config.allowAliases === true);
    if (!limits || !sharing) return new MeteredEngine(name, engine, budget, this.meter);
    const limiter = new ConnectionLimiter(name, limits, sharing, sharing.redis === null ? 'process' : 'redis');
    this.limiters.set(name, limiter);
    return new MeteredEngine(name, new RateLimitedEngine(engine, limiter), budget, this.meter);
  }

  /** Where a connection with limits counts them: `limiter.redis`, else the queue's Redis; the queue needs one. */
  private limitSharing(name: string): LimitSharing {
    const given = this.options.limiter;
    const redis = given.redis === undefined ? this.queueRedis : given.redis;
    if (redis === null && this.options.queue.enabled) {
      throw new InvalidRateLimit(
        `engines.${name}.limits is set and the queue is enabled, but no Redis is given to share the limits between ` +
          'processes (limiter.redis is null). Set limiter.redis to an ioredis client, or leave it unset to use the ' +
          "queue's Redis.",
      );
    }
    if (redis === null) {
      this.logger.configurationWarning(
        'The Engine connection has limits but no Redis to share them: they are counted in this process only, so ' +
          'N processes may send N times the limit. Set limiter.redis to share them.',
        { connection: name },
      );
    }
    return { ...given, redis };
  }

  private config(name: string): EngineConnectionOptions {
    const config = Object.hasOwn(this.options.connections, name) ? this.options.connections[name] : undefined;
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
          (Object.hasOwn(BUILT_IN_DRIVERS, driver) ? BUILT_IN_DRIVERS[driver].factory : undefined))
        : undefined;
    if (!factory) {
      const named = typeof driver === 'function' ? `class ${driver.name}` : JSON.stringify(driver);
      throw new EngineNotConfigured(
        `The Engine connection "${name}" names the driver ${named}, which is neither a built-in driver (jev, openai, mock), ` +
          'a driver of the module option drivers (or of EngineManager.extend()), nor a class implementing Engine. ' +
          `Fix engines.${name}.driver, or add the driver to the drivers option.`,
      );
    }
    return factory;
  }

  /** An alias model may move beneath calibrated thresholds: refused in production, warned about elsewhere. */
  private checkPinned(connection: string, model: string, allowAliases: boolean): void {
    if (isPinnedModel(model) || allowAliases) return;
    if (this.options.environment === 'production') {
      throw new UnpinnedModel(
        `The Engine connection "${connection}" asks the model "${model}", an alias rather than an exact version, in ` +
          'production: the model behind it can change beneath calibrated thresholds. Pin an exact version such as ' +
          `"jev-1.13.0" in engines.${connection}.model, or set engines.${connection}.allowAliases to accept the alias.`,
      );
    }
    this.logger.configurationWarning(
      'The Engine model is an alias, not an exact version: pin one before calibrating thresholds.',
      { connection, model },
    );
  }

  private connectionNames(): string {
    return Object.keys(this.options.connections).join(', ') || 'none';
  }
}

/** A connection's settings for `describe()`: each one that can be read, the default for one that cannot. */
function readableSettings(name: string, config: EngineConnectionOptions): ConnectionSettings {
  const readable: EngineConnectionOptions = {};
  for (const option of ['timeout', 'retries', 'maxLabels', 'budget', 'maxResponseBytes'] as const) {
    try {
      connectionSettings(name, { [option]: config[option] });
      readable[option] = config[option] as never;
    } catch {
      // Left at its default: `problem` says what is wrong with it.
    }
  }
  return connectionSettings(name, readable);
}
