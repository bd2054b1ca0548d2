// The openai driver against hostile or broken servers (issue 17, as for Jev in jev/hostile-engine.spec.ts): a
// wall-clock deadline per attempt, a response size cap, a small Provenance, retry waits the shutdown cancels, the key
// redacted from everything taken from a response, bounded foreign JSON, strict usage metering, and a 429 handed to
// the queue in a queued job. Real HTTP servers on the loopback address.
import fc from 'fast-check';
import {
  EngineBudgetExhausted,
  EngineCallInterrupted,
  EngineFailed,
  EngineRateLimitDeferred,
  EngineRejectedRequest,
  MalformedEngineResponse,
} from '../../errors';
import { fuzz } from '../../fuzz.spec-helpers';
import type { EngineConnectionOptions } from '../../judgment.options';
import { Likelihood, type Question } from '../../questions';
import { type EngineRequest, QUEUED_LIMITS } from '../engine.interface';
import { describeHttpHardening } from '../http/http-hardening.spec-helpers';
import { rejection, serve } from '../http/loopback-server.spec-helpers';
import { MeteredEngine, UsageMeter } from '../metering';
import { OpenAiEngine } from './openai.engine';
import { readCompletion } from './openai.response';

const KEY = 'sk-proj-hostile-openai-key';
const MODEL = 'sim-4o-2026-09-17';
const flagged = (): [string, Question] => ['flagged', Likelihood.that('Does the note ask for a refund?')];
const ask = (questions: Array<[string, Question]> = [flagged()]): EngineRequest => ({
  questions: new Map(questions),
  evidence: { note: 'Charged twice.' },
});

/** A Chat Completions body answering yes with 0.25 and no with 0.75 (plus `extra` top-level fields). */
function completion(extra: Record<string, unknown> = {}, top?: unknown[]): string {
  const entries = top ?? [
    { token: 'no', logprob: Math.log(0.75) },
    { token: 'yes', logprob: Math.log(0.25) },
  ];
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'no' },
        logprobs: { content: [{ token: 'no', logprob: Math.log(0.75), top_logprobs: entries }] },
        finish_reason: 'length',
      },
    ],
    usage: { prompt_tokens: 40, completion_tokens: 1, total_tokens: 41 },
    ...extra,
  });
}

function openai(url: string, options: EngineConnectionOptions = {}, shutdown?: AbortSignal): OpenAiEngine {
  return OpenAiEngine.connect('openai', { key: KEY, url, model: MODEL, ...options }, undefined, shutdown);
}

describeHttpHardening({
  connection: 'openai',
  connect: openai,
  request: ask,
  answer: (padding) => completion({ padding: 'x'.repeat(padding) }),
  rateLimited: '{"error":{"message":"Rate limit reached","type":"requests"}}',
});

describe('a 429 in a queued job is handed to the queue', () => {
  it('throws EngineRateLimitDeferred at once with the wait from retry-after, else x-ratelimit-reset-*', async () => {
    const headers = [
      { 'retry-after': '7' },
      { 'x-ratelimit-reset-requests': '250ms', 'x-ratelimit-reset-tokens': '2s' },
    ];
    const server = await serve((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', ...headers.shift() });
      res.end('{"error":{"message":"Rate limit reached"}}');
    });
    const driver = openai(server.url, { retries: 3 });
    const first = await rejection(driver.answer({ ...ask(), limits: QUEUED_LIMITS }));
    const second = await rejection(driver.answer({ ...ask(), limits: QUEUED_LIMITS }));
    await server.close();
    expect(first).toBeInstanceOf(EngineRateLimitDeferred);
    expect((first as EngineRateLimitDeferred).retryAfterMs).toBe(7000);
    expect((second as EngineRateLimitDeferred).retryAfterMs).toBe(2000);
    expect(server.requests()).toBe(2);
  });

  it('once a Question of the round was answered (paid), the rest of the round is finished in the job', async () => {
    const statuses = [200, 429, 200];
    const server = await serve((_req, res) => {
      const status = statuses.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '20' });
      res.end(status === 200 ? completion() : '{"error":{"message":"Rate limit reached"}}');
    });
    const other: [string, Question] = ['urgent', Likelihood.that('Is it urgent?')];
    const driver = openai(server.url, { retries: 3, maxConcurrency: 1 });
    const { answers } = await driver.answer({ ...ask([flagged(), other]), limits: QUEUED_LIMITS });
    await server.close();
    expect(answers).toEqual({ flagged: expect.closeTo(0.25, 9), urgent: expect.closeTo(0.25, 9) });
    // Not deferred: the first answer is kept, the 429 waited out once, and nothing is asked twice.
    expect(server.requests()).toBe(3);
  });
});

describe('secrets from a hostile Engine', () => {
  it('a 2xx answer echoing the key (model, request id, fingerprint, tokens) keeps none of it in Provenance', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'x-request-id': `req_${KEY}`, 'content-type': 'application/json' });
      res.end(completion({ model: `${MODEL}-${KEY}`, system_fingerprint: `fp_${KEY}`, id: KEY }));
    });
    const { provenance } = await openai(server.url).answer(ask());
    await server.close();
    expect(JSON.stringify(provenance)).not.toContain(KEY);
    expect(provenance.requestId).toBe('req_[redacted]');
    expect(provenance.model).toBe(`${MODEL}-[redacted]`);
    expect(provenance.details.systemFingerprint).toBe('fp_[redacted]');
  });

  it('a rejected answer whose tokens, entries or escaped strings carry the key fails without the key', async () => {
    const escaped = `\\u${KEY.charCodeAt(0).toString(16).padStart(4, '0')}${KEY.slice(1)}`;
    const bodies = [
      completion({}, [{ token: KEY, logprob: -0.01 }]),
      completion({}, [{ token: KEY, logprob: 'high' }]),
      completion({}, [{ token: 'yes', logprob: -0.01, [KEY]: KEY }, { note: KEY }]),
      completion({}, [{ token: 'KEY', logprob: -0.01 }]).replace('"KEY"', `"${escaped}"`),
      completion({ model: 42, id: KEY }),
      completion({ choices: [KEY, KEY] }),
    ];
    for (const body of bodies) {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'x-request-id': KEY, 'content-type': 'application/json' });
        res.end(body);
      });
      const error = await rejection(openai(server.url).answer(ask()));
      await server.close();
      expect(error).toBeInstanceOf(MalformedEngineResponse);
      expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(KEY);
    }
  });

  it('an error body echoing the key is reported without it', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'x-request-id': KEY });
      res.end(JSON.stringify({ error: { message: `Invalid key ${KEY}` } }));
    });
    const error = await rejection(openai(server.url).answer(ask()));
    await server.close();
    expect(error).toBeInstanceOf(EngineRejectedRequest);
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(KEY);
  });
});

describe('foreign JSON is bounded in depth and length', () => {
  const nested = (depth: number, leaf = '"x"') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

  it('an error body nested 20,000 deep is an EngineRejectedRequest with a short message', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(`{"error":{"message":${nested(20_000)}},"detail":[{"loc":${nested(20_000)},"msg":"bad"}]}`);
    });
    const error = await rejection(openai(server.url).answer(ask()));
    await server.close();
    expect(error).toBeInstanceOf(EngineRejectedRequest);
    expect(error.message.length).toBeLessThan(1000);
  });

  it('a 3 MB error message becomes a short message', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'z'.repeat(3 << 20) } }));
    });
    const error = await rejection(openai(server.url).answer(ask()));
    await server.close();
    expect(error.message.length).toBeLessThan(1000);
  });

  it('a valid answer with deeply nested junk (anywhere) is read, and its Provenance can be stored', async () => {
    const junk = nested(20_000);
    const server = await serve((_req, res) =>
      res.end(
        completion({ junk: 'JUNK' }, [
          { token: 'yes', logprob: Math.log(0.25), junk: 'JUNK' },
          { token: 'no', logprob: Math.log(0.75) },
        ]).replaceAll('"JUNK"', junk),
      ),
    );
    const { answers, provenance } = await openai(server.url).answer(ask());
    await server.close();
    expect(answers.flagged).toBeCloseTo(0.25, 9);
    expect(() => JSON.stringify(provenance)).not.toThrow();
  });

  it('a model name or fingerprint of a megabyte is kept shortened', async () => {
    const server = await serve((_req, res) =>
      res.end(completion({ model: 'm'.repeat(1 << 20), system_fingerprint: 'f'.repeat(1 << 20) })),
    );
    const { provenance } = await openai(server.url).answer(ask());
    await server.close();
    expect(JSON.stringify(provenance).length).toBeLessThan(2000);
  });
});

describe('budget honesty', () => {
  it('negative or fractional usage is ignored, and a rejected 2xx answer is metered', async () => {
    const bodies = [
      completion({ usage: { prompt_tokens: -1e9, completion_tokens: 1 } }),
      completion({ usage: { prompt_tokens: 2.5, completion_tokens: 1 } }),
      completion({ usage: { prompt_tokens: 150, completion_tokens: 1 } }, [{ token: 'maybe', logprob: -0.01 }]),
      completion({ usage: { prompt_tokens: 10 } }),
    ];
    const server = await serve((_req, res) => res.end(bodies.shift()));
    const meter = new UsageMeter();
    const metered = new MeteredEngine('openai', openai(server.url), 100, meter);
    const { provenance } = await metered.answer(ask());
    expect((provenance.details.usage as Record<string, number>).input_tokens).toBe(0);
    await metered.answer(ask());
    expect(meter.usage('openai')).toBe(0);
    await expect(metered.answer(ask())).rejects.toBeInstanceOf(MalformedEngineResponse);
    expect(meter.usage('openai')).toBe(150);
    await expect(metered.answer(ask())).rejects.toBeInstanceOf(EngineBudgetExhausted);
    await server.close();
    expect(server.requests()).toBe(3);
  });

  it('every 2xx of a round is metered, even when another Question of the round fails', async () => {
    const responses: Array<[number, string]> = [
      [200, completion({ usage: { prompt_tokens: 70, completion_tokens: 1 } })],
      [500, '{"error":{"message":"The server had an error"}}'],
    ];
    const server = await serve((_req, res) => {
      const [status, body] = responses.shift() ?? [500, '{}'];
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    });
    const meter = new UsageMeter();
    const metered = new MeteredEngine('openai', openai(server.url, { maxConcurrency: 1 }), null, meter);
    const other: [string, Question] = ['other', Likelihood.that('Is it urgent?')];
    await expect(metered.answer(ask([flagged(), other]))).rejects.toBeInstanceOf(EngineFailed);
    await server.close();
    expect(meter.usage('openai')).toBe(70);
  });
  it('the answered part of a round the shutdown interrupts is metered: it was paid for', async () => {
    const responses: Array<[number, Record<string, string>, string]> = [
      [200, {}, completion({ usage: { prompt_tokens: 70, completion_tokens: 1 } })],
      [429, { 'retry-after': '25' }, '{"error":{"message":"Rate limit reached"}}'],
    ];
    const server = await serve((_req, res) => {
      const [status, headers, body] = responses.shift() ?? [500, {}, '{}'];
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    });
    const shutdown = new AbortController();
    const meter = new UsageMeter();
    const driver = openai(server.url, { maxConcurrency: 1, retries: 3 }, shutdown.signal);
    const other: [string, Question] = ['other', Likelihood.that('Is it urgent?')];
    const pending = rejection(new MeteredEngine('openai', driver, null, meter).answer(ask([flagged(), other])));
    while (server.requests() < 2) await new Promise((wake) => setTimeout(wake, 10));
    shutdown.abort();
    expect(await pending).toBeInstanceOf(EngineCallInterrupted);
    await server.close();
    expect(server.requests()).toBe(2);
    expect(meter.usage('openai')).toBe(70);
  });
});

describe('hostile Chat Completions bodies (property)', () => {
  it('reading any 2xx body either throws MalformedEngineResponse or yields a checked, storable, key-free reading (property)', () => {
    const rules = {
      key: 'team',
      tokens: ['A', 'B', 'C'],
      minCoverage: 0.5,
      temperature: null,
      wordLetters: true,
      topLogprobs: 20,
    };
    const logprob = fc.oneof(
      fc.double({ min: -50, max: 2, noNaN: true }),
      fc.constantFrom(0, -0, 1e-7, -1e9, Number.MAX_VALUE),
      fc.constantFrom('-0.5', KEY, null),
    );
    const token = fc.oneof(
      fc.constantFrom('A', ' b', 'B.', 'c)', 'C', KEY, `A${KEY}`, ''),
      fc.string({ maxLength: 4 }),
    );
    const junk = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(KEY));
    const entry = fc.oneof(fc.record({ token, logprob }), fc.record({ token, logprob, [KEY]: junk }), junk);
    const choice = fc.oneof(
      fc.record({
        index: fc.constant(0),
        logprobs: fc.record({
          content: fc.array(fc.record({ token, top_logprobs: fc.array(entry, { maxLength: 6 }) }), { maxLength: 2 }),
        }),
      }),
      junk,
    );
    const body = fc.record(
      {
        model: fc.oneof(fc.constant(MODEL), fc.constant(KEY), junk),
        choices: fc.oneof(fc.array(choice, { minLength: 1, maxLength: 2 }), junk),
        usage: fc.oneof(fc.record({ prompt_tokens: fc.oneof(fc.integer(), fc.double(), junk) }), junk),
        system_fingerprint: fc.oneof(fc.constant(`fp_${KEY}`), junk),
        extra: junk,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(body, fc.nat({ max: 200 }), (value, depth) => {
        const deep = `${'['.repeat(depth + 1)}${']'.repeat(depth + 1)}`;
        const text = `${JSON.stringify(value).slice(0, -1)}${Object.keys(value).length > 0 ? ',' : ''}"deep":${deep}}`;
        let reading: ReturnType<typeof readCompletion>;
        try {
          reading = readCompletion(text, rules, { connection: 'openai', requestId: null }, KEY);
        } catch (error) {
          expect(error).toBeInstanceOf(MalformedEngineResponse);
          expect((error as Error).message).not.toContain(KEY);
          expect((error as Error).message.length).toBeLessThan(2000);
          return;
        }
        expect(JSON.stringify(reading)).not.toContain(KEY);
        expect(reading.probabilities).toHaveLength(3);
        for (const probability of reading.probabilities) expect(probability >= 0 && probability <= 1).toBe(true);
        expect(Math.abs(reading.probabilities.reduce((total, p) => total + p, 0) - 1)).toBeLessThan(1e-9);
        for (const count of Object.values(reading.usage)) expect(Number.isSafeInteger(count) && count >= 0).toBe(true);
      }),
      fuzz(300),
    );
  });
});
