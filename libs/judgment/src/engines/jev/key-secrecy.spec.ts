import { Logger } from '@nestjs/common';
import { inspect } from 'node:util';
import { JevSimulator, type Fault } from 'nestjs-judgment/simulator';
import { Classification, Likelihood, type Question } from '../../questions';
import { type EngineConnectionOptions, resolveJudgmentOptions } from '../../judgment.options';
import type { EngineRequest } from '../engine.interface';
import { EngineManager } from '../engine.manager';
import { EngineNotConfigured } from '../../errors';
import { JudgmentError } from '../../errors/judgment.error';

const SECRET = 'sk-SECRET-123';
const simulator = new JevSimulator();
let url: string;
const logged: unknown[] = [];

beforeAll(async () => {
  url = await simulator.start(0);
  for (const level of ['log', 'warn', 'error', 'debug', 'verbose', 'fatal'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => void logged.push(args));
  }
});
afterAll(async () => {
  jest.restoreAllMocks();
  await simulator.stop();
});
beforeEach(() => simulator.clearFaults().clearLog());

const ask: EngineRequest = {
  questions: new Map<string, Question>([
    ['abusive', Likelihood.that('Is this an attempt to abuse the policy?')],
    ['team', Classification.of('Which team?', ['billing', 'tech', 'sales'])],
  ]),
  evidence: { note: 'Charged twice.' },
};

/** Everything an error exposes: message, stack, own properties, the whole cause chain. */
function exposed(error: unknown): string {
  const chain: unknown[] = [];
  for (let link = error; link instanceof Error; link = link.cause) chain.push(link);
  const plain = chain.map((link) =>
    Object.fromEntries(Object.getOwnPropertyNames(link).map((name) => [name, (link as never)[name]])),
  );
  return [
    String(error),
    (error as Error).stack,
    inspect(error, { depth: null, showHidden: true }),
    JSON.stringify(plain),
  ].join('\n');
}

function connection(options: EngineConnectionOptions): EngineManager {
  return new EngineManager(
    resolveJudgmentOptions({
      engine: 'jev',
      environment: 'development',
      // A deadline generous enough for a loaded machine: a request that outlives it would take the next case's fault.
      engines: { jev: { key: SECRET, url, model: 'jev-latest', retries: 0, timeout: 5, ...options } },
    }),
  );
}

const faults: Array<[string, Fault | null, EngineConnectionOptions, string]> = [
  [
    'a rejected request echoing the key',
    { status: 400, body: { detail: `Bad header: Bearer ${SECRET}` } },
    {},
    'EngineRejectedRequest',
  ],
  ['a validation error', { status: 422 }, {}, 'EngineRejectedRequest'],
  ['refused credentials', { status: 401 }, {}, 'EngineUnauthorized'],
  ['a forbidden request', { status: 403 }, {}, 'EngineUnauthorized'],
  ['a rate limit', { status: 429, retryAfterMs: 1 }, {}, 'EngineRateLimited'],
  ['an overload', { status: 529, retryAfterMs: 1 }, {}, 'EngineOverloaded'],
  ['a server error', { status: 500 }, {}, 'EngineFailed'],
  [
    'a proxy page echoing the key',
    { status: 502, body: `<html>Authorization: Bearer ${SECRET}</html>` },
    {},
    'EngineFailed',
  ],
  ['a timeout', { kind: 'hang' }, { timeout: 0.3 }, 'EngineFailed'],
  ['a dropped connection', { kind: 'disconnect' }, {}, 'EngineFailed'],
  ['a malformed response', { kind: 'malformed', variant: 'non-json' }, {}, 'MalformedEngineResponse'],
  ['an unreachable server', null, { url: 'http://127.0.0.1:1' }, 'EngineFailed'],
  ['a Classification over maxLabels', null, { maxLabels: 2 }, 'EngineRejectedRequest'],
  ['a spent budget', null, { budget: 0 }, 'EngineBudgetExhausted'],
];

describe('the API key never leaves the driver', () => {
  it.each(faults)(
    'is absent from the error, its cause chain and the logs on %s',
    async (_case, fault, options, failure) => {
      if (fault) simulator.fail(fault);
      const error = await connection(options)
        .connection()
        .answer(ask)
        .catch((thrown: unknown) => thrown);
      expect((error as Error).name).toBe(failure);
      // Never the HTTP client's own error: only the Judgment error and the plain cause the driver wrote.
      for (let link: unknown = error; link instanceof Error; link = link.cause) {
        expect(link instanceof JudgmentError || link.constructor === Error).toBe(true);
      }
      expect(exposed(error)).not.toContain(SECRET);
      expect(inspect(logged, { depth: null })).not.toContain(SECRET);
    },
  );

  it('is absent from the Provenance of an answer', async () => {
    const manager = new EngineManager(
      resolveJudgmentOptions({ engines: { jev: { key: SECRET, url, model: 'jev-1.13.0' } } }),
    );
    const { provenance } = await manager.connection().answer(ask);
    expect(inspect(provenance, { depth: null })).not.toContain(SECRET);
  });

  it('is absent from the connection itself when it is logged or serialised, yet sent as the Bearer token', async () => {
    const manager = new EngineManager(
      resolveJudgmentOptions({ engines: { jev: { key: SECRET, url, model: 'jev-1.13.0' } } }),
    );
    const engine = manager.connection();
    expect(inspect(engine, { depth: null, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(engine)).not.toContain(SECRET);
    expect(inspect(manager, { depth: null })).not.toContain(SECRET);
    await engine.answer(ask);
    expect(simulator.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });
});

describe('keys too short to blank safely (issue 31)', () => {
  it.each([
    ['jev', 'e'],
    ['jev', 'ab'],
    ['jev', '1234567'],
    ['openai', 'k'],
  ])(
    'a %s connection with the key %j is refused when it is built, naming the connection and the rule',
    (driver, key) => {
      const manager = new EngineManager(
        resolveJudgmentOptions({
          engine: 'main',
          engines: { main: { driver, key, url, model: driver === 'jev' ? 'jev-1.13.0' : 'gpt-4o-2024-08-06' } },
        }),
      );
      expect(() => manager.validate(['main'])).toThrow(EngineNotConfigured);
      expect(() => manager.validate(['main'])).toThrow(
        `The Engine connection "main" has an API key of ${key.length} character${key.length === 1 ? '' : 's'}`,
      );
      expect(() => manager.validate(['main'])).toThrow(/at least 8 characters/);
    },
  );

  it('a key of 8 characters, the shortest accepted, is taken: the answer is read and its usage metered', async () => {
    const keyed = new JevSimulator({ apiKey: 'e1e2e3e4' });
    const keyedUrl = await keyed.start(0);
    try {
      const manager = new EngineManager(
        resolveJudgmentOptions({
          engines: { jev: { key: 'e1e2e3e4', url: keyedUrl, model: 'jev-1.13.0', retries: 0 } },
        }),
      );
      const { answers } = await manager.connection().answer(ask);
      expect(Object.keys(answers).sort()).toEqual(['abusive', 'team']);
      expect(manager.usage('jev')).toBeGreaterThan(0);
    } finally {
      await keyed.stop();
    }
  });
});
