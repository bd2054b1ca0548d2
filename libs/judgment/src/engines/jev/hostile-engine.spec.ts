// The Jev driver against hostile or broken servers (issue 17): a wall-clock deadline per attempt, a response size
// cap, shortened raw-body Provenance, retry waits the shutdown cancels. Real HTTP servers on the loopback address.
import { EngineBudgetExhausted, EngineRejectedRequest, MalformedEngineResponse } from '../../errors';
import { Classification, Likelihood, Rating, type Question } from '../../questions';
import { MeteredEngine, UsageMeter } from '../metering';
import fc from 'fast-check';
import { fuzz } from '../../fuzz.spec-helpers';
import { readResponse, sumTolerance } from './jev.wire';
import type { EngineConnectionOptions } from '../../judgment.options';
import { JevEngine } from './jev.engine';
import { describeHttpHardening } from '../http/http-hardening.spec-helpers';
import { rejection, serve } from '../http/loopback-server.spec-helpers';

const KEY = 'sk-hostile-test-key';
const questions = () => new Map<string, Question>([['abusive', Likelihood.that('Is this abuse?')]]);
const ask = () => ({ questions: questions(), evidence: { note: 'Charged twice.' } });
const answer = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'jev-1.13.0', answers: { abusive: { type: 'noul', noul: 0.25 } }, ...extra });

function jev(url: string, options: EngineConnectionOptions = {}, shutdown?: AbortSignal): JevEngine {
  return JevEngine.connect('jev', { key: KEY, url, model: 'jev-1.13.0', ...options }, undefined, shutdown);
}

describeHttpHardening({
  connection: 'jev',
  connect: jev,
  request: ask,
  answer: (padding) => answer({ padding: 'x'.repeat(padding) }),
  rateLimited: '{"detail":{"message":"slow down"}}',
});

describe('raw bodies in Provenance', () => {
  it('keeps a large raw body in Provenance only shortened, with its length', async () => {
    const body = answer({ padding: 'y'.repeat(200_000) });
    const server = await serve((_req, res) => res.end(body));
    const { provenance } = await jev(server.url).answer(ask());
    await server.close();
    const response = provenance.details.response as { truncated: boolean; length: number; head: string };
    expect(response.truncated).toBe(true);
    expect(response.length).toBe(body.length);
    expect(response.head.length).toBeLessThanOrEqual(4096);
    expect(JSON.stringify(provenance.details).length).toBeLessThan(10_000);
  });
});

describe('answers are read strictly', () => {
  const questionsOf = () =>
    new Map<string, Question>([
      ['abusive', Likelihood.that('Is this abuse?')],
      ['team', Classification.of('Which team?', ['a', 'b', 'c', 'd'])],
      ['level', Rating.of('How credible?', ['no', 'doubtful', 'plausible', 'sure'])],
    ]);
  const good = {
    abusive: { type: 'noul', noul: 0.25 },
    team: { type: 'choice', probabilities: { a: 0.7, b: 0.1, c: 0.1, d: 0.1 } },
    level: { type: 'score', probabilities: { 0: 0.1, 1: 0.2, 2: 0.3, 3: 0.4 } },
  };
  async function readWith(answers: Record<string, unknown>) {
    const server = await serve((_req, res) =>
      res.end(JSON.stringify({ model: 'jev-1.13.0', answers: { ...good, ...answers } })),
    );
    try {
      return await jev(server.url).answer({ questions: questionsOf(), evidence: {} });
    } finally {
      await server.close();
    }
  }

  it.each([
    [
      'a Classification summing to 4',
      { team: { type: 'choice', probabilities: { a: 1, b: 1, c: 1, d: 1 } } },
      /sum to 4 instead of 1/,
    ],
    [
      'a Classification summing to 0',
      { team: { type: 'choice', probabilities: { a: 0, b: 0, c: 0, d: 0 } } },
      /sum to 0 instead of 1/,
    ],
    ['a Rating of [1,1,1,1]', { level: { type: 'score', probabilities: [1, 1, 1, 1] } }, /sum to 4 instead of 1/],
    ['"0x1"', { abusive: { type: 'noul', noul: '0x1' } }, /not a probability/],
    ['"0b1"', { abusive: { type: 'noul', noul: '0b1' } }, /not a probability/],
    ['"+0.5"', { abusive: { type: 'noul', noul: '+0.5' } }, /not a probability/],
    ['"1."', { abusive: { type: 'noul', noul: '1.' } }, /not a probability/],
    [
      '"0.5" in a distribution',
      { team: { type: 'choice', probabilities: { a: '0.7', b: 0.1, c: 0.1, d: 0.1 } } },
      /not a number/,
    ],
  ])('refuses %s', async (_case, answers, message) => {
    const error = await rejection(readWith(answers));
    expect(error).toBeInstanceOf(MalformedEngineResponse);
    expect(error.message).toMatch(message);
  });

  it('accepts distributions off by the rounding of two decimals (the stated tolerance)', async () => {
    expect(sumTolerance(4)).toBe(0.02);
    expect(sumTolerance(20)).toBe(0.1);
    const { answers } = await readWith({
      team: { type: 'choice', probabilities: { a: 0.67, b: 0.11, c: 0.11, d: 0.1 } },
    });
    expect(answers.team).toEqual({ a: 0.67, b: 0.11, c: 0.11, d: 0.1 });
  });

  it.each([
    ['4 options summing to exactly 1.02', { a: 0.53, b: 0.17, c: 0.17, d: 0.15 }],
    ['3 options summing to exactly 1.02', { a: 0.34, b: 0.34, c: 0.34 }],
    ['4 options summing to exactly 0.98', { a: 0.49, b: 0.17, c: 0.17, d: 0.15 }],
    ['6 options summing to exactly 1.03 (their tolerance)', { a: 0.2, b: 0.2, c: 0.2, d: 0.2, e: 0.13, f: 0.1 }],
  ])('accepts %s: the tolerance is compared with a floating-point margin (issue 31)', (_case, probabilities) => {
    const text = JSON.stringify({ model: 'jev-1.13.0', answers: { team: { type: 'choice', probabilities } } });
    const questions = new Map([['team', Classification.of('Which team?', Object.keys(probabilities))]]);
    const { answers } = readResponse(text, questions, { connection: 'jev', requestId: null });
    expect(answers.team).toEqual(probabilities);
  });

  it('still refuses a sum past the tolerance by a thousandth', async () => {
    const error = await rejection(
      readWith({ team: { type: 'choice', probabilities: { a: 0.531, b: 0.17, c: 0.17, d: 0.15 } } }),
    );
    expect(error).toBeInstanceOf(MalformedEngineResponse);
    expect(error.message).toMatch(/sum to 1\.021 instead of 1 \(±0\.02\)/);
  });
});

describe('foreign JSON is bounded in depth and length', () => {
  const nested = (depth: number, leaf = '"x"') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

  it('an error body with a deeply nested detail[].loc is an EngineRejectedRequest, not a RangeError', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(422, { 'content-type': 'application/json' });
      res.end(`{"detail":[{"loc":${nested(20_000)},"msg":"bad"}]}`);
    });
    const error = await rejection(jev(server.url).answer(ask()));
    await server.close();
    expect(error).toBeInstanceOf(EngineRejectedRequest);
    expect(error.message.length).toBeLessThan(1000);
  });

  it('a 5 MB error detail becomes a short message', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'z'.repeat(3 << 20) }));
    });
    const error = await rejection(jev(server.url).answer(ask()));
    await server.close();
    expect(error).toBeInstanceOf(EngineRejectedRequest);
    expect(error.message.length).toBeLessThan(1000);
  });

  it('a valid answer with deeply nested junk is read; its Provenance can be stored (no RangeError)', async () => {
    const server = await serve((_req, res) => res.end(`${answer().slice(0, -1)},"junk":${nested(20_000)}}`));
    const { answers, provenance } = await jev(server.url).answer(ask());
    await server.close();
    expect(answers).toEqual({ abusive: 0.25 });
    expect(() => JSON.stringify(provenance.details)).not.toThrow();
    expect(provenance.details.response).toMatchObject({ truncated: true });
  });
});

describe('budget honesty', () => {
  it('negative usage is ignored, and a rejected 2xx answer is metered', async () => {
    const bodies = [
      answer({ usage: { input_tokens: -1e9 } }),
      JSON.stringify({
        model: 'jev-1.13.0',
        answers: { abusive: { type: 'noul', noul: 7 } },
        usage: { input_tokens: 150 },
      }),
      answer({ usage: { input_tokens: 10 } }),
    ];
    const server = await serve((_req, res) => res.end(bodies.shift()));
    const meter = new UsageMeter();
    const metered = new MeteredEngine('jev', jev(server.url), 100, meter);
    await metered.answer(ask());
    expect(meter.usage('jev')).toBe(0);
    await expect(metered.answer(ask())).rejects.toBeInstanceOf(MalformedEngineResponse);
    expect(meter.usage('jev')).toBe(150);
    await expect(metered.answer(ask())).rejects.toBeInstanceOf(EngineBudgetExhausted);
    await server.close();
    expect(server.requests()).toBe(2);
  });

  it('fractional or non-numeric usage is not counted', () => {
    const meter = new UsageMeter();
    meter.spend('jev', { input_tokens: 2.5 });
    meter.spend('jev', { input_tokens: '40' });
    meter.spend('jev', { input_tokens: 12 });
    expect(meter.usage('jev')).toBe(12);
  });
});

describe('secrets from a hostile Engine', () => {
  it('a 2xx answer echoing the key (model, request id, fields) keeps none of it in Provenance', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'x-typesafe-request-id': `req_${KEY}`, 'content-type': 'application/json' });
      res.end(answer({ model: `jev-1.13.0-${KEY}`, echo: { [KEY]: KEY, note: `key=${KEY}` } }));
    });
    const { provenance } = await jev(server.url).answer(ask());
    await server.close();
    expect(JSON.stringify(provenance)).not.toContain(KEY);
    expect(provenance.requestId).toBe('req_[redacted]');
    expect(provenance.model).toBe('jev-1.13.0-[redacted]');
  });

  it('an answer keyed or typed with the key fails without the key in the error', async () => {
    for (const body of [
      JSON.stringify({ model: 'jev-1.13.0', answers: { [KEY]: { type: 'noul', noul: 0.1 } } }),
      JSON.stringify({ model: 'jev-1.13.0', answers: { abusive: { type: KEY, noul: 0.1 } } }),
      JSON.stringify({ model: 'jev-1.13.0', answers: { abusive: { type: 'noul', noul: 0.1 } } }).replace(
        'noul"',
        `noul","x":"\\u${KEY.charCodeAt(0).toString(16).padStart(4, '0')}${KEY.slice(1)}"`,
      ),
    ]) {
      const server = await serve((_req, res) => res.end(body));
      const result = await jev(server.url)
        .answer(ask())
        .then(
          (read) => JSON.stringify(read.provenance),
          (error: Error) => error.message,
        );
      await server.close();
      expect(result).not.toContain(KEY);
    }
  });
});

describe('hostile Engine bodies (property)', () => {
  it('reading any 2xx body either throws MalformedEngineResponse or yields checked, storable, key-free answers (property)', () => {
    const questions = new Map<string, Question>([
      ['abusive', Likelihood.that('Is this abuse?')],
      ['team', Classification.of('Which team?', ['a', 'b'])],
      ['level', Rating.of('How credible?', ['no', 'yes'])],
    ]);
    const number = fc.oneof(
      fc.double({ min: -2, max: 2, noNaN: true }),
      fc.constantFrom(0, 1, 0.5, -1e9, 1e9),
      fc.constantFrom('0x1', '+0.5', '1.', '0.5', KEY),
    );
    const junk = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(KEY), number);
    const answer = fc.oneof(
      fc.record({ type: fc.constantFrom('noul', 'choice', 'score', KEY), noul: number }),
      fc.record({
        type: fc.constantFrom('choice', 'score'),
        probabilities: fc.dictionary(fc.constantFrom('a', 'b', '0', '1', KEY), number),
      }),
      fc.record({ type: fc.constant('score'), probabilities: fc.array(number, { maxLength: 3 }) }),
      junk,
    );
    const body = fc.record(
      {
        model: fc.oneof(fc.constant('jev-1.13.0'), fc.constant(KEY), junk),
        answers: fc.oneof(fc.dictionary(fc.constantFrom('abusive', 'team', 'level', KEY), answer), junk),
        usage: fc.oneof(fc.record({ input_tokens: number }), junk),
        extra: junk,
      },
      { requiredKeys: [] },
    );
    const nesting = fc.nat({ max: 200 });
    fc.assert(
      fc.property(body, nesting, (value, depth) => {
        const deep = `${'['.repeat(depth + 1)}${']'.repeat(depth + 1)}`;
        const text = `${JSON.stringify(value).slice(0, -1)}${Object.keys(value).length > 0 ? ',' : ''}"deep":${deep}}`;
        let reading: ReturnType<typeof readResponse>;
        try {
          reading = readResponse(text, questions, { connection: 'jev', requestId: null }, KEY);
        } catch (error) {
          expect(error).toBeInstanceOf(MalformedEngineResponse);
          expect((error as Error).message).not.toContain(KEY);
          return;
        }
        const stored = JSON.stringify(reading);
        expect(stored).not.toContain(KEY);
        for (const [key, read] of Object.entries(reading.answers)) {
          const values = typeof read === 'number' ? [read] : Object.values(read as object);
          for (const probability of values) expect(probability >= 0 && probability <= 1).toBe(true);
          if (key !== 'abusive') {
            const sum = values.reduce((total: number, probability: number) => total + probability, 0);
            expect(Math.abs(sum - 1)).toBeLessThanOrEqual(sumTolerance(values.length));
          }
        }
      }),
      fuzz(300),
    );
  });
});
