// What real OpenAI-compatible servers send, and how the openai driver reads it (issues 28.5 and 27.4): no request-id
// header (llama.cpp's server: the body's `id` is the request id), token ids, options beyond the top list, lists that
// are not a distribution, placeholder log-probabilities, and a server that answers as another model than pinned.
import { Logger } from '@nestjs/common';
import { startOpenAiSimulator, type RunningOpenAiSimulator } from 'nestjs-judgment/simulator';
import { Evidence } from '../../definition/evidence';
import { MalformedEngineResponse } from '../../errors';
import type { EngineConnectionOptions } from '../../judgment.options';
import { Classification, Likelihood, type Question } from '../../questions';
import type { EngineRequest } from '../engine.interface';
import { OpenAiEngine } from './openai.engine';
import { readCompletion, servesPinned, type ReadingRules } from './openai.response';

let llama: RunningOpenAiSimulator;
const warned: unknown[] = [];

beforeAll(async () => {
  llama = await startOpenAiSimulator({ dialect: 'llama-server', model: 'tiny-judge' });
  jest.spyOn(Logger.prototype, 'warn').mockImplementation((...args: unknown[]) => void warned.push(args));
});
afterAll(async () => {
  jest.restoreAllMocks();
  await llama.stop();
});
beforeEach(() => {
  llama.clearLog().clearFaults();
  warned.length = 0;
});

const flagged: [string, Question] = ['flagged', Likelihood.that('Does the note ask for a refund?')];
const ask = (questions: Array<[string, Question]>, note = 'Charged twice.'): EngineRequest => ({
  questions: new Map(questions),
  evidence: { note: Evidence.untrusted(note) },
});
const engine = (options: EngineConnectionOptions = {}) =>
  OpenAiEngine.connect('llama', { url: llama.url, model: 'tiny-judge', retries: 0, timeout: 2, ...options });

/** A Chat Completions body whose first token's top_logprobs are `top` (probabilities, not logs). */
function body(top: Array<{ token: string; p?: number; logprob?: number; id?: number }>, extra = {}): string {
  const entries = top.map(({ token, p, logprob, id }) => ({
    ...(id === undefined ? {} : { id }),
    token,
    logprob: logprob ?? Math.log(p as number),
  }));
  return JSON.stringify({
    id: 'chatcmpl-body-id',
    model: 'tiny-judge',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: top[0].token },
        logprobs: { content: [{ ...entries[0], top_logprobs: entries }] },
      },
    ],
    usage: { prompt_tokens: 30, completion_tokens: 1 },
    ...extra,
  });
}
const rules = (tokens: string[]): ReadingRules => ({
  key: 'q',
  tokens,
  minCoverage: 0.5,
  temperature: null,
  wordLetters: false,
  topLogprobs: 20,
});
const origin = { connection: 'llama', requestId: null };
const read = (text: string, tokens = ['yes', 'no']) => readCompletion(text, rules(tokens), origin);
const refusal = (text: string, tokens = ['yes', 'no']): Error => {
  try {
    read(text, tokens);
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedEngineResponse);
    return error as Error;
  }
  throw new Error('Expected the answer to be refused');
};

describe('the request id of a server that sends no request-id header', () => {
  it("is the body's id (chatcmpl-…), in the Provenance and in errors", async () => {
    const { provenance } = await engine().answer(ask([flagged]));
    expect(llama.requests[0].requestId).toMatch(/^chatcmpl-/);
    expect(provenance.requestId).toBe(llama.requests[0].requestId);
    expect((provenance.details.requestIds as Record<string, string>).flagged).toBe(llama.requests[0].requestId);
    llama.fail({ kind: 'off-options' });
    const error = await engine()
      .answer(ask([flagged]))
      .catch((thrown: unknown) => thrown as MalformedEngineResponse);
    expect((error as Error).message).toContain(`request ${llama.requests[1].requestId}`);
  });
});

describe('tokens told apart by id', () => {
  it('reads two special tokens rendered "" as two tokens, and two tokens spelled "yes" both as yes', () => {
    const reading = read(
      body([
        { id: 1, token: 'yes', p: 0.5 },
        { id: 32000, token: '', p: 0.2 },
        { id: 32007, token: '', p: 0.1 },
        { id: 7, token: 'yes', p: 0.05 },
        { id: 2, token: 'no', p: 0.1 },
        { id: 1, token: 'yes', p: 0.5 },
      ]),
    );
    // By id: yes .5 + .05 (its repeat with id 1 once), no .1; the two "" tokens count in the sum, not as answers.
    expect(reading.coverage).toBeCloseTo(0.65, 12);
    expect(reading.probabilities[0]).toBeCloseTo(0.55 / 0.65, 12);
  });
});

describe('a top_logprobs list that is not a distribution (27.4)', () => {
  it('is refused when its probabilities sum past 1, naming the connection and the tokens', () => {
    const both = refusal(
      body([
        { token: 'yes', logprob: 0 },
        { token: 'no', logprob: 0 },
      ]),
    );
    expect(both.message).toContain('connection "llama"');
    expect(both.message).toContain('sum to 2.000');
    expect(both.message).toContain('"yes" 1.000, "no" 1.000');
    // and what to do about it: point the connection at a server that reports real log-probabilities, seen by the probe
    expect(both.message).toContain('judgment probe llama');
    expect(both.message).toMatch(/connection's url/);
    const spellings = refusal(
      body([
        { token: 'yes', logprob: 0 },
        { token: 'Yes', logprob: 0 },
        { token: ' yes', logprob: 0 },
      ]),
    );
    expect(spellings.message).toContain('sum to 3.000');
  });

  it('is read when the sum passes 1 by less than the tolerance (rounding)', () => {
    const reading = read(
      body([
        { token: 'yes', p: 0.7004 },
        { token: 'no', p: 0.3 },
      ]),
    );
    expect(reading.probabilities[0]).toBeCloseTo(0.7004 / 1.0004, 12);
  });

  it('refuses placeholder log-probabilities (−9999), as some providers send instead of real ones', async () => {
    const error = refusal(
      body([
        { token: 'yes', logprob: 0 },
        { token: 'no', logprob: -9999 },
      ]),
    );
    expect(error.message).toContain('-9999');
    llama.fail({ kind: 'sentinels' });
    await expect(engine().answer(ask([flagged]))).rejects.toThrow('placeholder');
  });
});

describe('an option beyond the top list', () => {
  it('is recorded with its upper bound: below the last listed token, and no more than the list leaves', async () => {
    const capped = await startOpenAiSimulator({ dialect: 'llama-server', model: 'tiny-judge', topLogprobsCap: 6 });
    try {
      const team = Classification.of('Which team?', ['billing', 'tech', 'sales', 'legal', 'press']);
      const { provenance } = await OpenAiEngine.connect('llama', { url: capped.url, model: 'tiny-judge' }).answer(
        ask([['team', team]], '[[team=billing:0.9]]'),
      );
      const unlisted = (
        provenance.details.unlisted as Record<string, { options: string[]; below: number; atMost: number }>
      ).team;
      expect(unlisted.options.length).toBeGreaterThan(0);
      expect(unlisted.below).toBeGreaterThan(0);
      expect(unlisted.atMost).toBeGreaterThanOrEqual(0);
    } finally {
      await capped.stop();
    }
  });

  it('refuses the answer when what the list leaves could make an unlisted option the likeliest', () => {
    // Five entries of a short list (as an Azure cap of 5): the options C and D are not among them, and the list
    // leaves 0.45 of the mass, more than A's 0.34.
    const text = body([
      { token: 'A', p: 0.32 },
      { token: 'B', p: 0.16 },
      { token: ' B', p: 0.03 },
      { token: 'a', p: 0.02 },
      { token: 'The', p: 0.02 },
    ]);
    const error = refusal(text, ['A', 'B', 'C', 'D']);
    expect(error.message).toContain('C, D');
    expect(error.message).toContain('topLogprobs');
    // With A at 0.6 nothing unlisted can pass it: read, C and D recorded below 0.02.
    const reading = read(
      body([
        { token: 'A', p: 0.6 },
        { token: 'B', p: 0.15 },
        { token: 'The', p: 0.05 },
        { token: ' B', p: 0.03 },
        { token: 'a', p: 0.02 },
      ]),
      ['A', 'B', 'C', 'D'],
    );
    expect(reading.unlisted).toEqual({
      options: [2, 3],
      below: expect.closeTo(0.02, 12),
      atMost: expect.closeTo(0.15, 12),
    });
  });
});

describe('a server that returns fewer top_logprobs than the Question has options', () => {
  it('is refused, naming the connection, how many entries came back and were asked, and the fix', () => {
    // Asked for 20, the server sends 3 (it caps the list): four options cannot all be in a list of three.
    const text = body([
      { token: 'A', p: 0.9 },
      { token: 'B', p: 0.05 },
      { token: 'C', p: 0.02 },
    ]);
    const error = refusal(text, ['A', 'B', 'C', 'D']);
    expect(error.message).toContain('"llama"');
    expect(error.message).toMatch(/3 top_logprobs where 20 were asked/);
    expect(error.message).toContain('4 options');
    expect(error.message).toMatch(/offer at most 3 options|returns at least 4/);
  });

  it('is read when the short list still has room for every option', () => {
    const reading = read(
      body([
        { token: 'yes', p: 0.9 },
        { token: 'no', p: 0.08 },
      ]),
    );
    expect(reading.masses).toEqual([expect.closeTo(0.9, 12), expect.closeTo(0.08, 12)]);
  });
});

describe('a server that answers as another model than the connection pins', () => {
  it('serves the pinned model only under its own name or a dated snapshot of it', () => {
    expect(servesPinned('gpt-4o', 'gpt-4o')).toBe(true);
    expect(servesPinned('gpt-4o', 'gpt-4o-2024-08-06')).toBe(true);
    expect(servesPinned('gpt-4o', 'gpt-4o-mini-2024-07-18')).toBe(false);
    expect(servesPinned('gpt-4o', 'gpt-4o-mini')).toBe(false);
    expect(servesPinned('tiny-judge', 'tiny-judge-chatty')).toBe(false);
  });

  it('warns when the pinned name is only a prefix of the served one (gpt-4o answered by gpt-4o-mini)', async () => {
    await OpenAiEngine.connect('llama', {
      url: llama.url,
      model: 'tiny',
      allowAliases: true,
      retries: 0,
      timeout: 2,
    }).answer(ask([flagged]));
    const lines = warned.map((args) => JSON.stringify(args)).filter((line) => line.includes('another model'));
    expect(lines).toHaveLength(1);
  });

  it('is warned about once per connection and model, naming both', async () => {
    const pinned = engine({ model: 'gpt-4o-mini-2024-07-18' });
    const first = await pinned.answer(ask([flagged]));
    await pinned.answer(ask([flagged]));
    expect(first.provenance.model).toBe('tiny-judge');
    const lines = warned.map((args) => JSON.stringify(args)).filter((line) => line.includes('another model'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('gpt-4o-mini-2024-07-18');
    expect(lines[0]).toContain('tiny-judge');
    expect(lines[0]).toContain('llama');
  });

  it('is not warned about when the server resolves the pinned alias to a dated snapshot, or names the pinned model', async () => {
    await engine().answer(ask([flagged]));
    const sim = await startOpenAiSimulator();
    try {
      await OpenAiEngine.connect('openai', { url: sim.url, model: 'sim-4o', allowAliases: true }).answer(
        ask([flagged]),
      );
    } finally {
      await sim.stop();
    }
    expect(warned.filter((args) => JSON.stringify(args).includes('another model'))).toHaveLength(0);
  });
});
