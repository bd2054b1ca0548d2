import { Logger } from '@nestjs/common';
import { isAxiosError } from 'axios';
import { inspect } from 'node:util';
import { JevSimulator, type Fault } from '../../../../../apps/jev-simulator/src';
import { Classification, Likelihood, type Question } from '../../questions';
import type { EngineConnectionOptions } from '../../judgment.options';
import type { EngineRequest } from '../engine.interface';
import { EngineManager } from '../engine.manager';

const SECRET = 'sk-SECRET-123';
const simulator = new JevSimulator({ apiKey: 'apikey_other' });
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
  return [String(error), (error as Error).stack, inspect(error, { depth: null, showHidden: true }), JSON.stringify(plain)].join('\n');
}

function connection(options: EngineConnectionOptions): EngineManager {
  return new EngineManager({
    engine: 'jev',
    environment: 'development',
    engines: { jev: { key: SECRET, url, model: 'jev-latest', retries: 0, timeout: 0.3, ...options } },
  });
}

const faults: Array<[string, Fault | null, EngineConnectionOptions?]> = [
  ['a rejected request echoing the key', { status: 400, body: { detail: `Bad header: Bearer ${SECRET}` } }],
  ['a validation error', { status: 422 }],
  ['refused credentials', null],
  ['a forbidden request', { status: 403 }],
  ['a rate limit', { status: 429, retryAfterMs: 1 }],
  ['an overload', { status: 529, retryAfterMs: 1 }],
  ['a server error', { status: 500 }],
  ['a proxy page echoing the key', { status: 502, body: `<html>Authorization: Bearer ${SECRET}</html>` }],
  ['a timeout', { kind: 'hang' }],
  ['a dropped connection', { kind: 'disconnect' }],
  ['a malformed response', { kind: 'malformed', variant: 'non-json' }],
  ['an unreachable server', null, { url: 'http://127.0.0.1:1' }],
  ['a key the HTTP client refuses as a header', null, { key: `${SECRET}\n` }],
  ['a Classification over maxLabels', null, { maxLabels: 2 }],
  ['a spent budget', null, { budget: 0 }],
];

describe('the API key never leaves the driver', () => {
  it.each(faults)('is absent from the error, its cause chain and the logs on %s', async (_case, fault, options) => {
    if (fault) simulator.fail(fault);
    console.error("A");
    const error = await connection(options ?? {})
      .connection()
      .answer(ask)
      .catch((thrown: unknown) => thrown);
    console.error("B", error);
    expect(error).toBeInstanceOf(Error);
    for (let link: unknown = error; link instanceof Error; link = link.cause) expect(isAxiosError(link)).toBe(false);
    console.error("C");
    expect(exposed(error)).not.toContain(SECRET);
    console.error("D");
    console.error("E", logged.length);
    expect(inspect(logged, { depth: null })).not.toContain(SECRET);
    console.error("F");
  });

  it('is absent from the Provenance of an answer', async () => {
    const manager = new EngineManager({ engines: { jev: { key: 'apikey_other', url, model: 'jev-1.13.0' } } });
    const { provenance } = await manager.connection().answer(ask);
    expect(inspect(provenance, { depth: null })).not.toContain('apikey_other');
  });
});
