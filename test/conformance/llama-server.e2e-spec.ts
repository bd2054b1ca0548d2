// The openai driver against a real OpenAI-compatible server: llama.cpp's llama-server with tiny hand-made models
// (../shared/llama-server; see test/support/llama-server.ts). Every answered probability is checked against the raw
// top_logprobs the server sent, read by hand here, independently of the driver's own reading.
import { writeFileSync, mkdirSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { join } from 'node:path';
import { Classification, EngineFailed, Evidence, Likelihood, Rating } from 'nestjs-judgment';
import { startOpenAiSimulator } from 'nestjs-judgment/simulator';
import { EngineUnauthorized, MalformedEngineResponse } from 'nestjs-judgment/drivers';
import type { EngineConnectionOptions } from '../../libs/judgment/src/judgment.options';
import type { EngineRequest } from '../../libs/judgment/src/engines/engine.interface';
import type { Question } from '../../libs/judgment/src/questions';
import { OpenAiEngine } from '../../libs/judgment/src/engines/openai/openai.engine';
import { CREDIBILITY, DEPARTMENTS, RefundAbuse, aRefund, rejectionOf, startApp, type Harness } from '../judge/support';
import { testOutputDir } from '../support/browser';
import {
  LLAMA_SERVER_VARIABLE,
  llamaServerFolder,
  startLlamaServer,
  type Exchange,
  type RunningLlamaServer,
} from '../support/llama-server';

const KEY = 'llama-conformance-key';
const MODELS = ['tiny-judge', 'tiny-chatty', 'tiny-eos', 'tiny-gpt2'] as const;
type Model = (typeof MODELS)[number];
const servers = {} as Record<Model | 'keyed', RunningLlamaServer>;

beforeAll(async () => {
  const started = await Promise.all([
    ...MODELS.map((model) => startLlamaServer(model)),
    startLlamaServer('tiny-judge', ['--api-key', KEY]),
  ]);
  MODELS.forEach((model, index) => (servers[model] = started[index]));
  servers.keyed = started[MODELS.length];
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
  writeTable();
});

function engine(server: RunningLlamaServer, options: EngineConnectionOptions = {}): OpenAiEngine {
  return OpenAiEngine.connect('llama', { url: server.url, model: server.model, timeout: 5, retries: 0, ...options });
}

const ask = (questions: Array<[string, Question]>, text = 'My parcel arrived broken.'): EngineRequest => ({
  questions: new Map(questions),
  evidence: { note: Evidence.untrusted(text) },
});

// ---------------------------------------------------------------------------------------------------------------
// The reading by hand: the option tokens a Question is asked with, and each option's share of the mass the raw
// top_logprobs put on them (spellings with a leading space or another case count for the option; an entry counts once
// by its token id).

/** The answer tokens of a Question, as the README says the driver asks them. */
function tokensOf(question: Question): string[] {
  if (question.kind === 'likelihood') return ['yes', 'no'];
  if (question.kind === 'rating') return question.levels.map((_, level) => String(level));
  return question.options().map((_, index) => String.fromCharCode(65 + index));
}

interface ByHand {
  readonly probabilities: number[];
  readonly coverage: number;
  readonly top: ReadonlyArray<{ token: string; p: number }>;
}

function byHand(exchange: Exchange, tokens: readonly string[]): ByHand {
  const body = JSON.parse(exchange.text);
  const entries = body.choices[0].logprobs.content[0].top_logprobs as Array<{
    id: number;
    token: string;
    logprob: number;
  }>;
  const seen = new Set<number>();
  const masses = tokens.map(() => 0);
  for (const { id, token, logprob } of entries) {
    if (seen.has(id)) continue;
    seen.add(id);
    const spelled = token.trim().toLowerCase();
    const index = tokens.findIndex((option) => option.toLowerCase() === spelled);
    if (index >= 0) masses[index] += Math.exp(logprob);
  }
  const coverage = masses.reduce((sum, mass) => sum + mass, 0);
  return {
    probabilities: masses.map((mass) => mass / coverage),
    coverage,
    top: entries.slice(0, 3).map(({ token, logprob }) => ({ token, p: Math.exp(logprob) })),
  };
}

/** The exchange that asked Question `key` (the prompt names it). */
function exchangeOf(server: RunningLlamaServer, key: string): Exchange {
  const found = [...server.exchanges]
    .reverse()
    .find((exchange) => JSON.stringify(exchange.request?.messages ?? []).includes(`Question \\"${key}\\"`));
  if (!found) throw new Error(`No exchange asked "${key}"`);
  return found;
}

/** The driver's answer as probabilities in option order. */
function probabilitiesOf(question: Question, answer: unknown): number[] {
  if (question.kind === 'likelihood') return [answer as number, 1 - (answer as number)];
  if (question.kind === 'rating') return [...(answer as number[])];
  return question.options().map((option) => (answer as Record<string, number>)[option]);
}

// The table the note asks for: per Question kind and model, answered or refused, coverage, matched by hand.
const rows: string[] = [];
function row(model: string, kind: string, outcome: string, coverage: number | null, matched: string): void {
  rows.push(`| ${model} | ${kind} | ${outcome} | ${coverage === null ? '—' : coverage.toFixed(3)} | ${matched} |`);
}
function writeTable(): void {
  mkdirSync(testOutputDir, { recursive: true });
  const head =
    '| model | Question | answered / refused | coverage (by hand) | matches by hand |\n|---|---|---|---|---|';
  writeFileSync(join(testOutputDir, 'llama-server-conformance.md'), `${head}\n${rows.join('\n')}\n`);
}

/** Asks `questions` of `model` and checks each answer against the raw top_logprobs: answered, or refused. */
async function conform(model: Model, questions: Array<[string, Question]>, text?: string) {
  const server = servers[model];
  const connection = engine(server);
  const results: Array<{ key: string; answered: boolean; hand: ByHand; error?: unknown }> = [];
  for (const [key, question] of questions) {
    const hand = () => byHand(exchangeOf(server, key), tokensOf(question));
    try {
      const { answers, provenance } = await connection.answer(ask([[key, question]], text));
      const expected = hand();
      const probabilities = probabilitiesOf(question, answers[key]);
      probabilities.forEach((p, index) => expect(p).toBeCloseTo(expected.probabilities[index], 12));
      expect((provenance.details.coverage as Record<string, number>)[key]).toBeCloseTo(expected.coverage, 6);
      row(
        model,
        `${question.kind} (${key})`,
        'answered',
        expected.coverage,
        `yes, ${probabilities.length} of ${probabilities.length} to 1e-12`,
      );
      results.push({ key, answered: true, hand: expected });
    } catch (error) {
      if (!(error instanceof MalformedEngineResponse)) throw error;
      const expected = hand();
      row(model, `${question.kind} (${key})`, 'refused', expected.coverage, 'n/a (refused)');
      results.push({ key, answered: false, hand: expected, error });
    }
  }
  return results;
}

const KINDS: Array<[string, Question]> = [
  ['abusive', Likelihood.that('Is this refund request an attempt to abuse the refund policy?')],
  ['department', Classification.of('Which department should handle it?', DEPARTMENTS)],
  ['routing', Classification.of('Which queue?', ['billing', 'shipping', 'returns']).orNone()],
  ['credibility', Rating.of('How credible is the explanation?', CREDIBILITY)],
];

describe('the openai driver against llama-server', () => {
  it('answers every Question kind on tiny-judge, each probability matching the raw top_logprobs read by hand', async () => {
    const results = await conform('tiny-judge', KINDS);
    expect(results.map(({ key, answered }) => [key, answered])).toEqual(KINDS.map(([key]) => [key, true]));
  });

  it('answers on the GPT-2 vocabulary (byte-level BPE) as on the SentencePiece one', async () => {
    const results = await conform('tiny-gpt2', KINDS);
    expect(results.every(({ answered }) => answered)).toBe(true);
  });

  it('reads the escape option: "none" is the last letter, read like any other', async () => {
    const question = Classification.of('Which queue?', ['billing', 'shipping', 'returns']).orNone();
    const { answers } = await engine(servers['tiny-judge']).answer(ask([['routing', question]]));
    const expected = byHand(exchangeOf(servers['tiny-judge'], 'routing'), ['A', 'B', 'C', 'D']);
    expect((answers.routing as Record<string, number>).none).toBeCloseTo(expected.probabilities[3], 12);
    expect(Object.keys(answers.routing as object)).toEqual(['billing', 'shipping', 'returns', 'none']);
  });

  it('answers a Judgment with a Likelihood Set through the Judge, one request per label, matched by hand', async () => {
    let harness: Harness | undefined;
    try {
      harness = await startApp({
        typeOrm: null,
        options: {
          engine: 'llama',
          persistence: { enabled: false },
          engines: {
            llama: { driver: 'openai', url: servers['tiny-judge'].url, model: 'tiny-judge', allowAliases: true },
          },
        },
        extras: { dataSource: false },
        judgments: [RefundAbuse],
      });
      const assessment = await harness.judge.assess(new RefundAbuse(aRefund({ explanation: 'It came broken.' })));
      const harms = assessment.likelihoodSet('harms');
      for (const label of ['threat', 'spam'] as const) {
        const expected = byHand(exchangeOf(servers['tiny-judge'], `harms.${label}`), ['yes', 'no']);
        expect(harms.of(label).probability).toBeCloseTo(expected.probabilities[0], 12);
      }
      expect(assessment.provenance.model).toBe('tiny-judge');
      // llama-server sends no request-id header: the body's id is the request id.
      expect(assessment.provenance.requestId).toBe(JSON.parse(exchangeOf(servers['tiny-judge'], 'abusive').text).id);
      expect(assessment.provenance.requestId).toMatch(/^chatcmpl-/);
      expect((assessment.provenance.details.usage as { requests: number }).requests).toBe(5);
    } finally {
      await harness?.close();
    }
  });

  it('moves the answer with the Evidence: "broken" in the text shifts yes/no as the model was built to', async () => {
    const question: Array<[string, Question]> = [['flagged', Likelihood.that('Is the item damaged?')]];
    const plain = await engine(servers['tiny-judge']).answer(ask(question, 'It arrived.'));
    const broken = await engine(servers['tiny-judge']).answer(ask(question, 'It arrived broken.'));
    expect(broken.answers.flagged as number).toBeGreaterThan((plain.answers.flagged as number) + 0.1);
  });

  it('refuses every kind on the chatty model, naming the tokens it wanted to say instead', async () => {
    const results = await conform('tiny-chatty', KINDS);
    for (const { answered, error } of results) {
      expect(answered).toBe(false);
      expect((error as Error).message).toContain('"I", "The"');
    }
  });

  it('refuses the chatty model for every option count from 2 to the most a connection reads, naming its tokens', async () => {
    const chatty = engine(servers['tiny-chatty']);
    for (let count = 2; count <= 20; count++) {
      const labels = Array.from({ length: count }, (_, index) => `queue-${index}`);
      const error = await rejectionOf(chatty.answer(ask([['queue', Classification.of('Which queue?', labels)]])));
      expect([count, error]).toEqual([count, expect.any(MalformedEngineResponse)]);
      expect(error.message).toContain('"I", "The"');
      row('tiny-chatty', `classification (${count} options)`, 'refused', null, 'n/a (refused)');
    }
  });

  it('still reads a model that answers, at every option count, with one request per Question', async () => {
    for (const model of ['tiny-judge', 'tiny-gpt2'] as const) {
      const server = servers[model];
      for (let count = 2; count <= 20; count++) {
        const labels = Array.from({ length: count }, (_, index) => `queue-${index}`);
        const question = Classification.of('Which queue?', labels);
        const before = server.exchanges.length;
        const { answers, provenance } = await engine(server).answer(ask([['queue', question]]));
        expect(server.exchanges.length - before).toBe(1);
        const exchange = exchangeOf(server, 'queue');
        const expected = byHand(exchange, tokensOf(question));
        const probabilities = probabilitiesOf(question, answers.queue);
        probabilities.forEach((p, index) => expect(p).toBeCloseTo(expected.probabilities[index], 12));
        row(
          model,
          `classification (${count} options)`,
          'answered',
          expected.coverage,
          `yes, ${probabilities.length} of ${probabilities.length} to 1e-12`,
        );
        // The models put their letter mass on A to D: from E on the options are not in the top 20, and are
        // recorded with their bound, the 20th token's probability.
        const unlisted = (provenance.details.unlisted as Record<string, { options: string[]; below: number }>)?.queue;
        if (count <= 4) expect(unlisted).toBeUndefined();
        else {
          const entries = JSON.parse(exchange.text).choices[0].logprobs.content[0].top_logprobs;
          expect(unlisted.options).toEqual(labels.slice(4).filter((label) => label !== 'queue-8'));
          expect(unlisted.below).toBeCloseTo(Math.exp(entries.at(-1).logprob), 12);
        }
      }
    }
  });

  it('tells the end-of-text token ("" from llama-server) from the answers by its id, and refuses a thin Rating', async () => {
    const results = await conform('tiny-eos', KINDS, 'My parcel arrived late.');
    const eos = results[0].hand.top[0];
    expect(eos.token).toBe('');
    const byKey = Object.fromEntries(results.map(({ key, answered }) => [key, answered]));
    // The end-of-text token takes about 0.4 of every first token: a Rating's digits keep too little.
    expect(byKey.credibility).toBe(false);
    expect(byKey.abusive).toBe(true);
  });

  it('sends the Bearer key to a server started with --api-key, and names its refusal of a wrong one', async () => {
    const question: Array<[string, Question]> = [['flagged', Likelihood.that('Is the item damaged?')]];
    const { answers } = await engine(servers.keyed, { key: KEY }).answer(ask(question));
    expect(typeof answers.flagged).toBe('number');
    const refused = await rejectionOf(engine(servers.keyed, { key: 'wrong-key' }).answer(ask(question)));
    expect(refused).toBeInstanceOf(EngineUnauthorized);
    expect(refused.message).toContain('Invalid API Key');
    expect(refused.message).toContain('connection "llama"');
    expect(refused.message).not.toContain('wrong-key');
  });

  it('warns once that a connection pinned to another model is answered by tiny-judge (llama-server ignores model)', async () => {
    const warnings: string[] = [];
    const spy = jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation((line: unknown) => void warnings.push(String(JSON.stringify(line))));
    try {
      const pinned = engine(servers['tiny-judge'], { model: 'gpt-4o-mini-2024-07-18' });
      const question: Array<[string, Question]> = [['flagged', Likelihood.that('Is the item damaged?')]];
      const { provenance } = await pinned.answer(ask(question));
      await pinned.answer(ask(question));
      expect(provenance.model).toBe('tiny-judge');
      const mismatch = warnings.filter((line) => line.includes('another model'));
      expect(mismatch).toHaveLength(1);
      expect(mismatch[0]).toContain('gpt-4o-mini-2024-07-18');
      expect(mismatch[0]).toContain('tiny-judge');
    } finally {
      spy.mockRestore();
    }
  });

  it('fails with EngineFailed naming the connection when the server is down', async () => {
    const server = await startLlamaServer('tiny-judge');
    await server.stop();
    const down = OpenAiEngine.connect('llama', { url: server.direct, model: 'tiny-judge', timeout: 2, retries: 0 });
    const error = await rejectionOf(down.answer(ask([['flagged', Likelihood.that('Is the item damaged?')]])));
    expect(error).toBeInstanceOf(EngineFailed);
    expect(error.message).toContain('"llama"');
  });
});

describe('finding llama-server', () => {
  it('fails saying llama-server is missing, where it looked and how to point at it', () => {
    const before = process.env[LLAMA_SERVER_VARIABLE];
    process.env[LLAMA_SERVER_VARIABLE] = join(testOutputDir, 'no-llama-server-here');
    try {
      expect(() => llamaServerFolder()).toThrow(
        /llama-server is missing: .*no-llama-server-here \(JUDGMENT_LLAMA_SERVER\).*This suite is part of CI, not optional/,
      );
    } finally {
      if (before === undefined) delete process.env[LLAMA_SERVER_VARIABLE];
      else process.env[LLAMA_SERVER_VARIABLE] = before;
    }
  });
});

describe("the simulator's llama-server dialect against the real server", () => {
  /** The shape of an answer: its keys at each level the driver reads, and the headers it leans on. */
  function shape(text: string, headers: Record<string, unknown>) {
    const body = JSON.parse(text);
    const choice = body.choices[0];
    const first = choice.logprobs.content[0];
    return {
      body: Object.keys(body)
        .filter((key) => key !== 'timings')
        .sort(),
      choice: Object.keys(choice).sort(),
      message: Object.keys(choice.message).sort(),
      logprobs: Object.keys(choice.logprobs).sort(),
      entry: Object.keys(first.top_logprobs[0]).sort(),
      count: first.top_logprobs.length,
      requestIdHeader: headers['x-request-id'] ?? null,
      rateLimitHeaders: Object.keys(headers).filter((name) => name.startsWith('x-ratelimit')),
    };
  }

  it('sends the same fields, the exact top_logprobs count, token ids and no request-id header', async () => {
    const question: Array<[string, Question]> = [['flagged', Likelihood.that('Is the item damaged?')]];
    await engine(servers['tiny-judge'], { topLogprobs: 7 }).answer(ask(question));
    const real = exchangeOf(servers['tiny-judge'], 'flagged');
    const sim = await startOpenAiSimulator({ dialect: 'llama-server', model: 'tiny-judge' });
    try {
      const response = await fetch(`${sim.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(real.request),
      });
      const simulated = shape(await response.text(), Object.fromEntries(response.headers));
      const served = shape(real.text, real.headers);
      // llama-server sends `object` and `usage`/`created` too; the simulator must send at least what it sends.
      expect(simulated).toEqual({ ...served, body: expect.arrayContaining(served.body) });
      expect(served.count).toBe(7);
      expect(served.entry).toEqual(['bytes', 'id', 'logprob', 'token']);
    } finally {
      await sim.stop();
    }
  });
});
