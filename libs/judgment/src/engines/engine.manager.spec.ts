import { ConsoleLogger, Logger } from '@nestjs/common';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { Provenance } from '../assessment/provenance';
import {
  EngineBudgetExhausted,
  EngineNotConfigured,
  InvalidConfiguration,
  InvalidPrice,
  UnpinnedModel,
} from '../errors';
import { type EngineConnectionOptions, type JudgmentModuleOptions, resolveJudgmentOptions } from '../judgment.options';
import { Likelihood } from '../questions';
import type { Engine, EngineRequest, EngineResponse } from './engine.interface';
import { EngineManager, isPinnedModel } from './engine.manager';
import { MockEngine } from './mock/mock.engine';

const ask: EngineRequest = {
  questions: new Map([['spam', Likelihood.that('Is this spam?')]]),
  evidence: { text: 'Hi' },
};

/** A custom Engine that reports a fixed usage. */
class CountingEngine implements Engine {
  calls = 0;
  constructor(private readonly tokens = 100) {}
  model(): string {
    return 'counting-2.0.0';
  }
  async answer(): Promise<EngineResponse> {
    this.calls++;
    return {
      answers: { spam: 0.1 },
      provenance: new Provenance('counting', 'counting-2.0.1', null, { usage: { input_tokens: this.tokens } }),
    };
  }
}

const manager = (options: JudgmentModuleOptions) =>
  new EngineManager(resolveJudgmentOptions({ environment: 'test', ...options }));
const jevConfig = (config: EngineConnectionOptions = {}): EngineConnectionOptions => ({
  key: 'apikey_test',
  model: 'jev-1.13.0',
  ...config,
});

function configurationError(build: () => unknown): Error {
  try {
    build();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a configuration error');
}

let warnings: jest.SpyInstance;
beforeEach(() => {
  warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

describe('EngineManager: connections', () => {
  it('uses the engine option as the default connection, else jev', () => {
    expect(manager({}).defaultConnectionName()).toBe('jev');
    expect(manager({ engine: 'laya' }).defaultConnectionName()).toBe('laya');
  });

  it('builds each connection once and caches it', () => {
    const factory = jest.fn(() => new CountingEngine());
    const engines = manager({ engines: { custom: { driver: 'counting' } } }).extend('counting', factory);
    expect(engines.connection('custom')).toBe(engines.connection('custom'));
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it('builds the jev and mock drivers', () => {
    const engines = manager({ engines: { jev: jevConfig(), demo: { driver: 'mock' } } });
    expect(engines.connection().model()).toBe('jev-1.13.0');
    expect(engines.connection('demo').model()).toBe('mock-1.0.0');
  });

  it('builds registered drivers with the connection options and { name, options }', () => {
    const options = { engines: { custom: { driver: 'local', threshold: 3 } } };
    const factory = jest.fn(() => new CountingEngine());
    manager(options).extend('local', factory).connection('custom');
    expect(factory).toHaveBeenCalledWith(options.engines.custom, {
      name: 'custom',
      options: expect.objectContaining({ connections: options.engines }),
      shutdown: expect.any(AbortSignal),
    });
  });

  it('takes drivers from the module option drivers, and one registered on a manager wins', () => {
    const options = { drivers: { counting: () => new CountingEngine() }, engines: { custom: { driver: 'counting' } } };
    expect(manager(options).connection('custom').model()).toBe('counting-2.0.0');
    const local = manager(options).extend('counting', () => new MockEngine('local-1.0.0'));
    expect(local.connection('custom').model()).toBe('local-1.0.0');
    // A driver of one app's options serves no other manager: there is no registry shared between them.
    expect(() => manager({ engines: { custom: { driver: 'counting' } } }).connection('custom')).toThrow(
      EngineNotConfigured,
    );
  });

  it('refuses the static EngineManager.extend(), saying to use the drivers option', () => {
    expect(() => EngineManager.extend('keywords', () => new CountingEngine())).toThrow(InvalidConfiguration);
    expect(() => EngineManager.extend('keywords', () => new CountingEngine())).toThrow(
      /give it in the module option drivers/,
    );
  });

  it('instantiates an Engine class driver through resolveClass, else with new', () => {
    const resolved = new CountingEngine();
    const options = { engines: { custom: { driver: CountingEngine } } };
    expect(
      (
        new EngineManager(resolveJudgmentOptions(options), () => resolved).connection('custom') as unknown as {
          engine: Engine;
        }
      ).engine,
    ).toBe(resolved);
    expect(manager(options).connection('custom').model()).toBe('counting-2.0.0');
  });

  it('validate() builds the named connections now, surfacing the first configuration error', () => {
    const factory = jest.fn(() => new CountingEngine());
    const engines = manager({ engines: { a: { driver: 'x' }, b: { driver: 'x' }, broken: { driver: 'jev' } } });
    engines.extend('x', factory).validate(['a', 'b']);
    expect(factory).toHaveBeenCalledTimes(2);
    expect(() => engines.validate(['a', 'broken'])).toThrow(EngineNotConfigured);
  });
});

describe('EngineManager: configuration errors (EngineNotConfigured)', () => {
  it('refuses a blank default connection', () => {
    const error = configurationError(() => manager({ engine: '', engines: { jev: jevConfig() } }).connection());
    expect(error).toBeInstanceOf(EngineNotConfigured);
    expect(error.message).toBe(
      'No default Engine connection is set. Set the engine option (JUDGMENT_ENGINE) to one of the connections in ' +
        'engines (jev).',
    );
  });

  it('refuses an unknown connection, naming the configured ones', () => {
    const error = configurationError(() => manager({ engines: { jev: jevConfig(), laya: {} } }).connection('lyra'));
    expect(error.message).toBe(
      'The Engine connection "lyra" is not configured: engines has no "lyra" entry (configured: jev, laya). ' +
        'Add engines.lyra to the module options, or name a configured connection.',
    );
  });

  it('refuses an unknown driver, and a class that is not an Engine', () => {
    const unknown = configurationError(() => manager({ engines: { x: { driver: 'gemini' } } }).connection('x'));
    expect(unknown).toBeInstanceOf(EngineNotConfigured);
    expect(unknown.message).toContain('The Engine connection "x" names the driver "gemini", which is neither');
    expect(unknown.message).toContain('EngineManager.extend()');
    class NotAnEngine {}
    const notEngine = configurationError(() =>
      manager({ engines: { x: { driver: NotAnEngine as never } } }).connection('x'),
    );
    expect(notEngine.message).toContain('names the driver class NotAnEngine');
  });

  it.each([
    'http://127.0.0.1:4010',
    'http://127.42.0.9',
    'http://localhost:4010/',
    'http://LOCALHOST',
    'http://[::1]:4010',
  ])('needs no key for a connection whose url is a loopback address (%s)', (url) => {
    const engine = manager({ engines: { jev: jevConfig({ key: null, url }) } }).connection();
    expect(engine.model()).toBe('jev-1.13.0');
  });

  it.each([
    [undefined],
    ['https://jev.example.com'],
    ['http://128.0.0.1:4010'],
    ['http://localhost.example.com'],
    ['http://10.0.0.7:8000'],
    ['http://[::2]:4010'],
  ])('refuses a connection without a key whose url is not a loopback address (%s)', (url) => {
    const error = configurationError(() => manager({ engines: { jev: jevConfig({ key: '', url }) } }).connection());
    expect(error).toBeInstanceOf(EngineNotConfigured);
    expect(error.message).toBe(
      `The Engine connection "jev" has no API key, and its url ${(url ?? 'https://api.typesafe.ai').replace(/\/+$/, '')} ` +
        'is not a loopback address. Set engines.jev.key (TYPESAFE_API_KEY), or point engines.jev.url at a server on ' +
        'this machine (127.0.0.1, localhost or [::1]), which needs none; for a remote server that needs none, set ' +
        'engines.jev.requireKey to false.',
    );
  });

  it('names the LAYA_API_KEY variable for the laya connection', () => {
    const error = configurationError(() =>
      manager({ engines: { laya: jevConfig({ key: null, url: 'http://laya.internal:8000' }) } }).connection('laya'),
    );
    expect(error.message).toContain('Set engines.laya.key (LAYA_API_KEY)');
  });

  it('lets requireKey override the loopback rule both ways', () => {
    const required = configurationError(() =>
      manager({
        engines: { jev: jevConfig({ key: null, url: 'http://127.0.0.1:4010', requireKey: true }) },
      }).connection(),
    );
    expect(required.message).toBe(
      'The Engine connection "jev" has no API key, and engines.jev.requireKey is true. Set engines.jev.key ' +
        '(TYPESAFE_API_KEY), or remove requireKey.',
    );
    const remote = jevConfig({ key: null, url: 'https://laya.internal', requireKey: false });
    expect(
      manager({ engines: { jev: remote } })
        .connection()
        .model(),
    ).toBe('jev-1.13.0');
  });

  it('refuses a jev connection without a model', () => {
    const error = configurationError(() => manager({ engines: { jev: jevConfig({ model: ' ' }) } }).connection());
    expect(error.message).toMatch(/^The Engine connection "jev" has no model\. Set engines\.jev\.model/);
  });

  it('refuses a maxLabels that is not an integer of 2 or more (null means the package limit)', () => {
    for (const maxLabels of [1, 2.5, '2.5', '1e3', '', -4, Number.NaN]) {
      const error = configurationError(() =>
        manager({ engines: { laya: jevConfig({ maxLabels: maxLabels as number }) } }).connection('laya'),
      );
      expect(error).toBeInstanceOf(EngineNotConfigured);
      expect(error.message).toContain('The Engine connection "laya" has an invalid maxLabels');
      expect(error.message).toContain('set engines.laya.maxLabels to an integer of 2 or more, or to null');
    }
    for (const maxLabels of [2, '20', null]) {
      expect(
        manager({ engines: { laya: jevConfig({ maxLabels: maxLabels as number }) } }).connection('laya'),
      ).toBeDefined();
    }
  });

  it.each([
    ['timeout', [0, -1, 'soon'], [0.5, '10']],
    ['retries', [-1, 1.5, 'three'], [0, '3']],
    ['budget', [-1, 0.5, 'lots'], [0, 50_000, null]],
  ])('refuses an invalid %s', (option, invalid, valid) => {
    for (const value of invalid) {
      const error = configurationError(() =>
        manager({ engines: { jev: jevConfig({ [option]: value }) } }).connection(),
      );
      expect(error).toBeInstanceOf(EngineNotConfigured);
      expect(error.message).toContain(
        `has an invalid ${option} (${JSON.stringify(value)}): set engines.jev.${option} to`,
      );
    }
    for (const value of valid)
      expect(manager({ engines: { jev: jevConfig({ [option]: value }) } }).connection()).toBeDefined();
  });

  it('refuses an invalid url', () => {
    const error = configurationError(() =>
      manager({ engines: { jev: jevConfig({ url: 'api.typesafe.ai' }) } }).connection(),
    );
    expect(error.message).toContain('has an invalid url ("api.typesafe.ai")');
  });
});

describe('EngineManager: pinned models', () => {
  it('counts a model as pinned when it ends in N.N.N or a snapshot date', () => {
    expect(['gpt-4o-2024-08-06', 'sim-4o-2026-09-17'].map(isPinnedModel)).toEqual([true, true]);
    expect(['gpt-4o', 'gpt-4o-mini', 'llama3.1:8b', 'gpt-4o-2024-08'].map(isPinnedModel)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(['jev-1.13.0', 'foo1.2.3', '1.2.3'].map(isPinnedModel)).toEqual([true, true, true]);
    expect(['jev-latest', 'english', 'jev-1.13', 'jev-1.13.0-rc1', 'auto'].map(isPinnedModel)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('refuses an alias in production with UnpinnedModel, unless allowAliases', () => {
    const alias = { engines: { jev: jevConfig({ model: 'jev-latest' }) }, environment: 'production' };
    const error = configurationError(() => new EngineManager(resolveJudgmentOptions(alias)).connection());
    expect(error).toBeInstanceOf(UnpinnedModel);
    expect(error.message).toContain('"jev" asks the model "jev-latest", an alias rather than an exact version');
    expect(error.message).toContain('engines.jev.allowAliases');
    const allowed = { ...alias, engines: { jev: jevConfig({ model: 'jev-latest', allowAliases: true }) } };
    expect(new EngineManager(resolveJudgmentOptions(allowed)).connection().model()).toBe('jev-latest');
    expect(warnings).not.toHaveBeenCalled();
  });

  it('takes the environment from NODE_ENV when the option is unset', () => {
    const env = jest.replaceProperty(process, 'env', { ...process.env, NODE_ENV: 'production' });
    try {
      expect(() =>
        new EngineManager(
          resolveJudgmentOptions({ engines: { jev: jevConfig({ model: 'jev-latest' }) } }),
        ).connection(),
      ).toThrow(UnpinnedModel);
    } finally {
      env.restore();
    }
  });

  it('warns once per connection about an alias outside production, even with log: false', () => {
    const engines = manager({
      log: false,
      engines: { jev: jevConfig({ model: 'jev-latest' }), laya: jevConfig({ model: 'english' }) },
    });
    engines.connection();
    engines.connection();
    engines.connection('laya');
    expect(warnings).toHaveBeenCalledTimes(2);
    expect(warnings.mock.calls[0][0]).toBe(
      'The Engine model is an alias, not an exact version: pin one before calibrating thresholds. ' +
        'connection=jev model=jev-latest',
    );
    expect(warnings.mock.contexts[0]).toEqual(expect.objectContaining({ context: 'Judgment' }));
  });

  it("gives the alias warning to a JSON or the app's own logger as an object with the same keys", () => {
    Logger.overrideLogger(new ConsoleLogger({ json: true }));
    try {
      manager({ engines: { jev: jevConfig({ model: 'jev-latest' }) } }).connection();
    } finally {
      Logger.overrideLogger(new ConsoleLogger());
    }
    expect(warnings.mock.calls[0][0]).toEqual({
      message: expect.stringContaining('alias'),
      connection: 'jev',
      model: 'jev-latest',
    });
  });
});

describe('EngineManager: budget and usage', () => {
  const simulator = new JevSimulator();
  let url: string;
  beforeAll(async () => {
    url = await simulator.start(0);
  });
  afterAll(() => simulator.stop());

  it('refuses at the budget with EngineBudgetExhausted, without touching the network', async () => {
    const engines = manager({ engines: { jev: jevConfig({ url, budget: 5 }) } });
    await engines.connection().answer(ask);
    const used = engines.usage('jev');
    expect(used).toBeGreaterThanOrEqual(5);
    const sent = simulator.requestCount;
    const error = await engines
      .connection()
      .answer(ask)
      .then(
        () => null,
        (thrown: Error) => thrown,
      );
    expect(error).toBeInstanceOf(EngineBudgetExhausted);
    expect(error?.message).toBe(
      `The Engine connection "jev" has spent its budget: ${used} input tokens used of 5 allowed in this process, so ` +
        'nothing was sent. Raise engines.jev.budget (JUDGMENT_BUDGET), or set it to null for no limit; the count ' +
        'starts again when the process restarts.',
    );
    expect(simulator.requestCount).toBe(sent);
  });

  it('counts input tokens per connection and in total, for any driver, and remembers the last model', async () => {
    const engines = manager({
      engines: { jev: jevConfig({ url, model: 'jev-latest', allowAliases: true }), custom: { driver: 'counting' } },
    }).extend('counting', () => new CountingEngine(100));
    expect(engines.lastModel()).toBeNull();
    const { provenance } = await engines.connection().answer(ask);
    expect(engines.lastModel()).toBe('jev-1.13.0');
    await engines.connection('custom').answer(ask);
    await engines.connection('custom').answer(ask);
    const jevTokens = (provenance.details.usage as { input_tokens: number }).input_tokens;
    expect(engines.usage('jev')).toBe(jevTokens);
    expect(engines.usage('custom')).toBe(200);
    expect(engines.usage()).toBe(jevTokens + 200);
    expect(engines.lastModel()).toBe('counting-2.0.1');
  });

  it('applies the budget to custom drivers too', async () => {
    const counting = new CountingEngine(100);
    const engines = manager({ engines: { custom: { driver: 'counting', budget: 150 } } }).extend(
      'counting',
      () => counting,
    );
    await engines.connection('custom').answer(ask);
    await engines.connection('custom').answer(ask);
    await expect(engines.connection('custom').answer(ask)).rejects.toBeInstanceOf(EngineBudgetExhausted);
    expect(counting.calls).toBe(2);
  });
});

describe('EngineManager: describe()', () => {
  it('reports a connection without its key and without asking the network', () => {
    const engines = manager({
      engines: { jev: jevConfig({ url: 'http://127.0.0.1:9/', budget: 1000, key: 'sk-SECRET-123' }) },
    });
    const status = engines.describe();
    expect(status).toEqual({
      connection: 'jev',
      driver: 'jev',
      url: 'http://127.0.0.1:9',
      model: 'jev-1.13.0',
      pinned: true,
      keyPresent: true,
      timeout: 10,
      retries: 3,
      maxLabels: null,
      budget: 1000,
      limits: null,
      limitStore: null,
      price: null,
      used: 0,
      configured: true,
      problem: null,
    });
    expect(JSON.stringify(status)).not.toContain('sk-SECRET-123');
  });

  it("reports a connection's price, and a price it cannot use as why the connection is not configured", () => {
    const price = { inputPerMillion: 0.15, outputPerMillion: 0.6, currency: 'EUR' };
    const engines = manager({
      engines: { jev: jevConfig({ price }), cheap: jevConfig({ price: { inputPerMillion: -2 } }) },
    });
    expect(engines.describe('jev').price).toEqual({ ...price, perRequest: null });
    expect(engines.price('jev')).toEqual({ ...price, perRequest: null });
    const broken = engines.describe('cheap');
    expect(broken).toMatchObject({ configured: false, price: null });
    expect(broken.problem).toContain('engines.cheap.price.inputPerMillion is -2');
    expect(() => engines.connection('cheap')).toThrow(InvalidPrice);
  });

  it('reports why a connection is not configured', () => {
    const status = manager({ engines: { jev: { model: 'jev-latest' } } }).describe('jev');
    expect(status).toMatchObject({
      url: 'https://api.typesafe.ai',
      keyPresent: false,
      pinned: false,
      configured: false,
    });
    expect(status.problem).toContain('has no API key');
  });
});
