import { Logger } from '@nestjs/common';
import { inspect } from 'node:util';
import { startOpenAiSimulator, type OpenAiFault, type RunningOpenAiSimulator } from 'nestjs-judgment/simulator';
import { Evidence } from '../../definition/evidence';
import { Classification, Likelihood, Rating, type Question } from '../../questions';
import { type EngineConnectionOptions, resolveJudgmentOptions } from '../../judgment.options';
import type { EngineRequest } from '../engine.interface';
import { EngineManager } from '../engine.manager';
import { OpenAiEngine } from './openai.engine';
import { durationMs, openAiRetryHeaders } from './openai.retry';
import { JudgmentError } from '../../errors/judgment.error';
import { MalformedEngineResponse } from '../../errors';

const SECRET = 'sk-proj-SECRET-4242';
let sim: RunningOpenAiSimulator;
const logged: unknown[] = [];

beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: SECRET });
  for (const level of ['log', 'warn', 'error', 'debug', 'verbose', 'fatal'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => void logged.push(args));
  }
});
afterAll(async () => {
  jest.restoreAllMocks();
  await sim.stop();
});
beforeEach(() => sim.clearFaults().clearLog().setLatency(0));

const ask = (questions: Array<[string, Question]>, note = 'Charged twice.'): EngineRequest => ({
  questions: new Map(questions),
  evidence: { note: Evidence.untrusted(note) },
});
const flagged: [string, Question] = ['flagged', Likelihood.that('Does the note ask for a refund?')];

function engine(options: EngineConnectionOptions = {}, waits: number[] = []): OpenAiEngine {
  const config = { url: sim.url, key: SECRET, model: 'sim-4o-2026-09-17', retries: 1, timeout: 0.5, ...options };
  return OpenAiEngine.connect('openai', config, async (ms) => void waits.push(ms));
}

/** Everything an error exposes: message, stack, own properties, the whole cause chain. */
function exposed(error: unknown): string {
  const chain: unknown[] = [];
  for (let link = error; link instanceof Error; link = link.cause) chain.push(link);
  return chain.map((link) => inspect(link, { depth: null, showHidden: true })).join('\n');
}

describe('the openai driver', () => {
  it('asks one request per Question with logprobs, top_logprobs, temperature 0 and one output token', async () => {
    await engine().answer(
      ask([flagged, ['team', Classification.of('Which team?', ['billing', 'tech'])]], '[[flagged=0.7]]'),
    );
    expect(sim.requests).toHaveLength(2);
    const body = sim.requests[0].body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'sim-4o-2026-09-17', temperature: 0, max_tokens: 1, n: 1, logprobs: true });
    expect(body.top_logprobs).toBe(20);
    expect(sim.requests[0].headers.authorization).toBe(`Bearer ${SECRET}`);
    // The end user's text is fenced as for Jev.
    expect(JSON.stringify(body.messages)).toContain('<untrusted_user_text>');
  });

  it('reads a steered answer exactly, whatever spelling variants the tokens came in', async () => {
    const { answers, provenance } = await engine().answer(
      ask(
        [flagged, ['team', Classification.of('Which team?', ['billing', 'tech']).orNone()]],
        '[[flagged=0.7]] [[team=none:0.8]]',
      ),
    );
    expect(answers.flagged).toBeCloseTo(0.7, 9);
    expect((answers.team as Record<string, number>).none).toBeCloseTo(0.8, 9);
    expect((answers.team as Record<string, number>).billing).toBeCloseTo(0.1, 9);
    expect(provenance.model).toBe('sim-4o-2026-09-17');
    const coverage = provenance.details.coverage as Record<string, number>;
    expect(coverage.flagged).toBeGreaterThan(0.9);
  });

  it('retries a 429 after the x-ratelimit-reset-* wait, then answers', async () => {
    const waits: number[] = [];
    sim.fail({ status: 429, resetRequests: '250ms', resetTokens: '1.5s' });
    const { answers } = await engine({}, waits).answer(ask([flagged]));
    expect(typeof answers.flagged).toBe('number');
    expect(waits).toEqual([1500]);
    expect(sim.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it('prefers retry-after over the reset headers', () => {
    expect(openAiRetryHeaders({ 'retry-after': '3', 'x-ratelimit-reset-requests': '9s' })).toEqual({
      'retry-after': '3',
      'retry-after-ms': undefined,
    });
    expect(openAiRetryHeaders({ 'x-ratelimit-reset-tokens': '6m0s' })).toEqual({ 'retry-after-ms': '360000' });
    expect(['1s', '6m0s', '20ms', '1h2m3.5s', '2', 'soon'].map((text) => durationMs(text))).toEqual([
      1000,
      360_000,
      20,
      3_723_500,
      2000,
      null,
    ]);
  });

  const failures: Array<[string, OpenAiFault, string, string]> = [
    ['refused credentials', { status: 401 }, 'EngineUnauthorized', 'Incorrect API key'],
    ['a forbidden request', { status: 403 }, 'EngineUnauthorized', 'not allowed'],
    [
      'an invalid request',
      { status: 400, body: { error: { message: "Invalid 'top_logprobs'.", type: 'invalid_request_error' } } },
      'EngineRejectedRequest',
      "Invalid 'top_logprobs'",
    ],
    ['a rate limit that lasts', { status: 429 }, 'EngineRateLimited', 'Rate limit reached'],
    ['an overload', { status: 529 }, 'EngineOverloaded', 'Overloaded'],
    ['a server error', { status: 500 }, 'EngineFailed', 'The server had an error'],
    ['a timeout', { kind: 'hang' }, 'EngineFailed', 'did not answer within 0.5 s'],
    ['a dropped connection', { kind: 'disconnect' }, 'EngineFailed', 'closed the connection before its answer'],
    ['a truncated body', { kind: 'truncated' }, 'MalformedEngineResponse', 'not a JSON object'],
    ['two choices', { kind: 'two-choices' }, 'MalformedEngineResponse', 'it has 2 choices, where 1 was asked'],
    ['missing logprobs', { kind: 'omit-logprobs' }, 'MalformedEngineResponse', 'carries no logprobs'],
    ['mass off the options', { kind: 'off-options' }, 'MalformedEngineResponse', 'fell on the answers yes, no'],
  ];

  it.each(failures)('maps %s to %s, never leaking the key', async (_case, fault, name, says) => {
    sim.fail(fault, 2);
    const error = await engine()
      .answer(ask([flagged]))
      .catch((thrown: unknown) => thrown);
    expect((error as Error).name).toBe(name);
    expect((error as Error).message).toContain(says);
    expect((error as Error).message).toContain('"openai"');
    // Never the HTTP client's own error: only the Judgment error and the plain cause the driver wrote.
    for (let link: unknown = error; link instanceof Error; link = link.cause) {
      expect(link instanceof JudgmentError || link.constructor === Error).toBe(true);
    }
    expect(exposed(error)).not.toContain(SECRET);
    expect(inspect(logged, { depth: null })).not.toContain(SECRET);
  });

  it('names the request in a malformed answer, and the share that fell on the options', async () => {
    sim.fail({ kind: 'off-options' });
    const error = (await engine()
      .answer(ask([flagged]))
      .catch((thrown: unknown) => thrown)) as Error & { requestId: string };
    expect(error.message).toMatch(/only 20\.0% of the first token's probability fell on the answers yes, no/);
    expect(error.message).toContain('at least 50.0% needed');
    expect(error.message).toContain(`request ${sim.requests[0].requestId}`);
  });

  it('carries the answers read before the round failed, with their Provenance, on the error', async () => {
    sim.fail({ kind: 'answer' }).fail({ kind: 'omit-logprobs' });
    const spam: [string, Question] = ['spam', Likelihood.that('Is the note advertising?')];
    const error = (await engine({ maxConcurrency: 1 })
      .answer(ask([flagged, spam], '[[flagged=0.7]]'))
      .catch((thrown: unknown) => thrown)) as MalformedEngineResponse;
    expect(error).toBeInstanceOf(MalformedEngineResponse);
    expect(error.answered?.answers).toEqual({ flagged: expect.closeTo(0.7, 9) });
    expect(error.answered?.provenance).toMatchObject({
      engine: 'openai',
      model: 'sim-4o-2026-09-17',
      requestId: sim.requests[0].requestId,
      details: { requestIds: { flagged: sim.requests[0].requestId }, usage: { requests: 1 } },
    });
    // A round that fails before any answer carries none.
    sim.fail({ kind: 'omit-logprobs' });
    const first = (await engine({ maxConcurrency: 1 })
      .answer(ask([flagged, spam]))
      .catch((thrown: unknown) => thrown)) as MalformedEngineResponse;
    expect(first.answered).toBeNull();
  });

  it('accepts lower coverage when minCoverage allows it, and then reads the share of what fell on the options', async () => {
    sim.fail({ kind: 'off-options' });
    const { answers, provenance } = await engine({ minCoverage: 0.1 }).answer(ask([flagged], '[[flagged=0.25]]'));
    expect(answers.flagged).toBeCloseTo(0.25, 9);
    expect((provenance.details.coverage as Record<string, number>).flagged).toBeCloseTo(0.2, 6);
  });

  it('keeps the key out of the driver when logged or serialised, and out of the Provenance', async () => {
    const driver = engine();
    expect(inspect(driver, { depth: null, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(driver)).not.toContain(SECRET);
    const { provenance } = await driver.answer(ask([flagged]));
    expect(inspect(provenance, { depth: null })).not.toContain(SECRET);
  });

  it('speaks the Azure flavour: deployment path, api-version and an api-key header', async () => {
    const azure = OpenAiEngine.connect('azure', {
      url: sim.root,
      key: SECRET,
      model: 'my-deployment',
      apiVersion: '2024-10-21',
      allowAliases: true,
    });
    const { answers } = await azure.answer(ask([flagged], '[[flagged=0.9]]'));
    expect(answers.flagged).toBeCloseTo(0.9, 9);
    const [request] = sim.requests;
    expect(request.path).toBe('/openai/deployments/my-deployment/chat/completions');
    expect(request.headers['api-key']).toBe(SECRET);
    expect(request.headers.authorization).toBeUndefined();
  });

  it('applies a configured temperature to the option masses and records it in the Provenance', async () => {
    const plain = await engine().answer(ask([flagged], '[[flagged=0.8]]'));
    const scaled = await engine({ temperatureScaling: 2 }).answer(ask([flagged], '[[flagged=0.8]]'));
    expect(plain.answers.flagged).toBeCloseTo(0.8, 9);
    // Masses .8c and .2c at T = 2: √.8 / (√.8 + √.2) = 2/3.
    expect(scaled.answers.flagged).toBeCloseTo(2 / 3, 9);
    expect(scaled.provenance.details.temperatureScaling).toBe(2);
    expect(plain.provenance.details).not.toHaveProperty('temperatureScaling');
  });

  it('sums token usage over the requests of a round, for the budget', async () => {
    const rating: [string, Question] = ['severity', Rating.of('How severe?', ['Low', 'High'])];
    const { provenance } = await engine().answer(ask([flagged, rating]));
    const prompt = sim.requests.map((request) => request.body as { messages: Array<{ content: string }> });
    expect(prompt).toHaveLength(2);
    const usage = provenance.details.usage as { input_tokens: number; output_tokens: number; requests: number };
    expect(usage.requests).toBe(2);
    expect(usage.output_tokens).toBe(2);
    expect(usage.input_tokens).toBeGreaterThan(0);
  });

  it('asks at most maxConcurrency Questions at once', async () => {
    sim.setLatency(60);
    const questions = Array.from({ length: 4 }, (_, index): [string, Question] => [`q${index}`, flagged[1]]);
    const started = Date.now();
    await engine({ maxConcurrency: 1 }).answer(ask(questions));
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 60 - 5);
    const at = sim.requests.map((request) => request.at);
    for (let index = 1; index < at.length; index++) expect(at[index] - at[index - 1]).toBeGreaterThanOrEqual(55);
  });
});

describe('the word-letter check: option letters A and I are also words a chatting model starts with', () => {
  const queues = (count: number) => Array.from({ length: count }, (_, index) => `queue-${index}`);
  const prompts = () => sim.requests.map((request) => JSON.stringify(request.body));

  it('refuses a chatty model at every option count, I among the letters or not, naming its likeliest tokens', async () => {
    for (let count = 2; count <= 20; count++) {
      sim.clearLog().fail({ kind: 'chatty' }, 2);
      const error = await engine()
        .answer(ask([['queue', Classification.of('Which queue?', queues(count))]]))
        .catch((thrown: unknown) => thrown);
      expect([count, (error as Error).name]).toEqual([count, 'MalformedEngineResponse']);
      expect((error as Error).message).toContain('the likeliest tokens were "I", "The"');
      // Below 9 options "I" is no option: the coverage alone refuses it. From 9 on, the Question is asked again.
      expect([count, sim.requests.length]).toEqual([count, count < 9 ? 1 : 2]);
      sim.clearFaults();
    }
    expect(prompts()[1]).toContain('B) queue-0');
    expect(prompts()[1]).not.toMatch(/\\n[AI]\) /);
  });

  it('asks once more, lettered without A and I, when the answer sits on A and the rest is on words; reads that answer', async () => {
    const team = Classification.of('Which team?', ['billing', 'tech', 'sales']);
    const { answers, provenance } = await engine().answer(ask([['team', team]], '[[team=billing:0.99]]'));
    expect(sim.requests).toHaveLength(2);
    expect(prompts()[1]).toContain('B) billing');
    expect((answers.team as Record<string, number>).billing).toBeCloseTo(0.99, 9);
    const askedAgain = provenance.details.askedAgain as Record<string, { letterShare: number; firstRequestId: string }>;
    expect(askedAgain.team.letterShare).toBeLessThan(0.5);
    expect(askedAgain.team.firstRequestId).toBe(sim.requests[0].requestId);
    expect((provenance.details.requestIds as Record<string, string>).team).toBe(sim.requests[1].requestId);
    expect(provenance.details.usage).toMatchObject({ output_tokens: 2, requests: 2 });
  });

  it('reads an answer on A from one request when the rest of its first token is on letters', async () => {
    const team = Classification.of('Which team?', ['billing', 'tech', 'sales']);
    const { answers, provenance } = await engine().answer(ask([['team', team]], '[[team=billing:0.6]]'));
    expect(sim.requests).toHaveLength(1);
    expect((answers.team as Record<string, number>).billing).toBeCloseTo(0.6, 9);
    expect(provenance.details).not.toHaveProperty('askedAgain');
  });
});

describe('what the openai driver refuses before any request', () => {
  const labels = (count: number) => Array.from({ length: count }, (_, index) => `label${index}`);

  it('lists a Classification with more options than top_logprobs among its refusals, and refuses to ask it', async () => {
    const wide = Classification.of('Which one?', labels(20)).orNone();
    const driver = engine();
    const refusals = driver.refusals(new Map<string, Question>([['wide', wide], flagged]));
    expect(refusals).toEqual([
      'The Engine connection "openai" reads at most 20 options per Question from the model\'s top log-probabilities, ' +
        'but "wide" offers 21. Narrow its labels (or split it into a Likelihood Set), or raise ' +
        'engines.openai.topLogprobs on a server that returns more.',
    ]);
    const error = await driver.answer(ask([['wide', wide]])).catch((thrown: unknown) => thrown);
    expect((error as Error).name).toBe('EngineRejectedRequest');
    expect(sim.requests).toHaveLength(0);
    expect(engine({ topLogprobs: 5 }).refusals(new Map([['levels', Rating.of('How?', labels(6))]]))).toHaveLength(1);
    expect(engine().refusals(new Map([['fine', Classification.of('Which?', labels(20))]]))).toEqual([]);
    // At most 24 options however many top_logprobs the server returns: one letter each without A and I.
    const many = engine({ topLogprobs: 30 });
    expect(many.refusals(new Map([['wide', Classification.of('Which?', labels(24))]]))).toEqual([]);
    expect(many.refusals(new Map([['wide', Classification.of('Which?', labels(25))]]))[0]).toContain(
      'reads at most 24 options per Question',
    );
  });

  const misconfigured: Array<[string, EngineConnectionOptions, string]> = [
    ['no model', { model: undefined }, 'The Engine connection "openai" has no model. Set engines.openai.model'],
    ['a url that is not http(s)', { url: 'ftp://example.com/v1' }, 'has an invalid url ("ftp://example.com/v1")'],
    [
      'no key for a remote url',
      { key: null, url: 'https://api.openai.com/v1' },
      'Set engines.openai.key (OPENAI_API_KEY)',
    ],
    [
      'a coverage above 1',
      { minCoverage: 1.5 },
      'invalid minCoverage (1.5): set engines.openai.minCoverage to a share',
    ],
    ['a zero temperature', { temperatureScaling: 0 }, 'invalid temperatureScaling (0)'],
    ['a concurrency of 0', { maxConcurrency: 0 }, 'invalid maxConcurrency (0)'],
    ['a blank apiVersion', { apiVersion: ' ' }, 'invalid apiVersion'],
  ];

  it.each(misconfigured)('refuses %s with EngineNotConfigured naming the connection', (_case, options, says) => {
    expect(() => engine(options)).toThrow(expect.objectContaining({ name: 'EngineNotConfigured' }));
    expect(() => engine(options)).toThrow(says);
  });

  it('is the built-in openai driver, and refuses an alias model in production', () => {
    const options = { driver: 'openai', url: sim.url, model: 'sim-4o' };
    const production = new EngineManager(
      resolveJudgmentOptions({ engine: 'openai', environment: 'production', engines: { openai: options } }),
    );
    expect(() => production.connection()).toThrow(expect.objectContaining({ name: 'UnpinnedModel' }));
    const allowed = new EngineManager(
      resolveJudgmentOptions({
        engine: 'openai',
        environment: 'production',
        engines: { openai: { ...options, allowAliases: true } },
      }),
    );
    expect(allowed.connection().model()).toBe('sim-4o');
    expect(allowed.describe()).toMatchObject({ driver: 'openai', url: sim.url, pinned: false, keyPresent: false });
  });
});

describe('a url that is not the base URL (issue 31)', () => {
  it('a 404 names the full URL asked and the path the driver appends to the url option', async () => {
    const error = await engine({ url: `${sim.url}/chat/completions`, retries: 0 })
      .answer(ask([flagged]))
      .then(
        () => new Error('answered'),
        (thrown: unknown) => thrown as Error,
      );
    expect(error.name).toBe('EngineFailed');
    expect(error.message).toContain(`POST ${sim.url}/chat/completions/chat/completions`);
    expect(error.message).toContain(
      `The driver appends /chat/completions to engines.openai.url (${sim.url}/chat/completions): set the url to ` +
        "the server's base URL, without /chat/completions.",
    );
  });
});
