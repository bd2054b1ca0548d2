import { inspect } from 'node:util';
import { Logger } from '@nestjs/common';
import { Provenance } from '../../assessment/provenance';
import {
  EngineFailed,
  EngineNotConfigured,
  EngineRateLimitDeferred,
  EngineRejectedRequest,
  MalformedEngineResponse,
} from '../../errors';
import type { EngineConnectionOptions } from '../../judgment.options';
import type { Question } from '../../questions/question';
import { connectionNumber, type HttpConnectionSettings, httpConnectionSettings } from '../connection.settings';
import type { Engine, EngineAnswer, EngineRequest, EngineResponse } from '../engine.interface';
import { EngineHttpClient } from '../http/engine-http.client';
import { redact, shorten } from '../http/foreign-json';
import { carriesUsage } from '../metering';
import { logEntry } from '../../logging/judgment.logger';
import type { Sleep } from '../http/request-limits';
import { statusError, type ResponseOrigin } from '../http/status-errors';
import { probeOpenAi, type OpenAiProbeReport, type ProbedQuestion } from './openai.probe';
import {
  answerTokens,
  chatPrompt,
  CLEAR_LETTERS,
  completionRequest,
  MAX_OPTIONS,
  type ChatPrompt,
} from './openai.prompt';
import {
  openAiErrorReason,
  readCompletion,
  servesPinned,
  type CompletionReading,
  type ReadingRules,
  type TokenUsage,
} from './openai.response';
import { openAiRetryHeaders } from './openai.retry';

/** Where OpenAI answers when a connection sets no `url` (the base URL, `/chat/completions` is appended). */
export const DEFAULT_OPENAI_URL = 'https://api.openai.com/v1';
/** The most `top_logprobs` OpenAI returns; a connection may allow more for servers that do (vLLM `--max-logprobs`). */
export const DEFAULT_TOP_LOGPROBS = 20;
/** The least share of the first token's probability that must fall on the answer tokens. */
export const DEFAULT_MIN_COVERAGE = 0.5;
/** Questions of one Judgment asked at once when a connection sets no `maxConcurrency`. */
export const DEFAULT_MAX_CONCURRENCY = 4;

/** HTTP statuses worth another attempt: rate-limited (429), slow down (503) and overloaded (529). */
const RETRYABLE = new Set([429, 503, 529]);

/** Everything the OpenAI-compatible driver needs to ask one connection. */
export interface OpenAiSettings extends Omit<HttpConnectionSettings, 'budget' | 'maxLabels'> {
  /** The connection name, recorded as the Provenance engine. */
  readonly connection: string;
  /** Requests of one Judgment in flight at once. */
  readonly maxConcurrency: number;
  /** `top_logprobs` asked for: the most options a Question may offer. */
  readonly topLogprobs: number;
  /** Least coverage accepted, 0..1. */
  readonly minCoverage: number;
  /** Fitted temperature applied to the option masses; null when off. */
  readonly temperatureScaling: number | null;
  /** Azure OpenAI: the `api-version`; the key goes in an `api-key` header and the model names the deployment. */
  readonly apiVersion: string | null;
}

/** One Question's reading, with the request that answered it. */
interface QuestionReading extends CompletionReading {
  readonly requestId: string | null;
  /** Requests this Question took: 1, or 2 when it was asked again without the word letters `A` and `I`. */
  readonly requests: number;
  /** When it was asked again: the first answer's letter share and request id. */
  readonly askedAgain: { readonly letterShare: number; readonly requestId: string | null } | null;
}

/**
 * The `openai` driver: any OpenAI-compatible Chat Completions server (OpenAI, Azure OpenAI, vLLM, llama.cpp server,
 * Ollama). Each Question is asked in its own request for one output token with `logprobs`; its probabilities are the
 * answer tokens' shares of the first token's probability mass.
 */
export class OpenAiEngine implements Engine {
  private readonly http: EngineHttpClient;
  private readonly settings: Omit<OpenAiSettings, 'key'>;
  /** The API key, to blank it out of what the server sends back (an ES private field). */
  readonly #key: string | null;
  /** Models the server answered as that the connection does not pin, each warned about once. */
  private readonly warnedModels = new Set<string>();
  private readonly logger = new Logger('Judgment');

  constructor(
    settings: OpenAiSettings,
    sleep?: Sleep,
    /** Aborts when the app shuts down: retry waits are cancelled and nothing more is sent. */
    shutdown?: AbortSignal,
  ) {
    const { key, ...visible } = settings;
    this.#key = key;
    this.settings = visible;
    const azure = settings.apiVersion !== null;
    const endpoint = azure
      ? `${settings.url}/openai/deployments/${encodeURIComponent(settings.model)}/chat/completions` +
        `?api-version=${encodeURIComponent(settings.apiVersion as string)}`
      : `${settings.url}/chat/completions`;
    this.http = new EngineHttpClient(
      {
        ...visible,
        endpoint,
        retryable: RETRYABLE,
        retryHeaders: openAiRetryHeaders,
        authorization: (secret) => (azure ? ['api-key', secret] : ['Authorization', `Bearer ${secret}`]),
      },
      key,
      sleep,
      shutdown,
    );
  }

  /** What the driver shows when logged or serialised: never the key. */
  toJSON(): { connection: string; driver: string; model: string; url: string } {
    const { connection, model, url } = this.settings;
    return { connection, driver: 'openai', model, url };
  }

  [inspect.custom](): string {
    return `OpenAiEngine ${JSON.stringify(this.toJSON())}`;
  }

  /** Checks a connection's options and builds its driver; EngineNotConfigured names what to fix. */
  static connect(
    connection: string,
    config: EngineConnectionOptions,
    sleep?: Sleep,
    shutdown?: AbortSignal,
  ): OpenAiEngine {
    const { key, url, model, timeout, retries, maxResponseBytes } = httpConnectionSettings(connection, config, {
      defaultUrl: DEFAULT_OPENAI_URL,
      model:
        'pinned to a snapshot such as "gpt-4o-mini-2024-07-18" (or the model name your vLLM, llama.cpp or Ollama ' +
        'server serves)',
      urls: `"${DEFAULT_OPENAI_URL}" or "http://localhost:8000/v1"`,
    });
    const apiVersion = config.apiVersion ?? null;
    if (apiVersion !== null && (typeof apiVersion !== 'string' || apiVersion.trim() === '')) {
      throw new EngineNotConfigured(
        `The Engine connection "${connection}" has an invalid apiVersion (${JSON.stringify(apiVersion)}): set ` +
          `engines.${connection}.apiVersion to the Azure OpenAI api-version, such as "2024-10-21", or leave it out.`,
      );
    }
    const number = (name: string, rule: Parameters<typeof connectionNumber>[3]) =>
      connectionNumber(connection, config, name, rule);
    return new OpenAiEngine(
      {
        connection,
        key,
        url,
        model,
        timeout,
        retries,
        maxResponseBytes,
        maxConcurrency:
          number('maxConcurrency', { integer: true, min: 1, expected: 'an integer of 1 or more' }) ??
          DEFAULT_MAX_CONCURRENCY,
        topLogprobs:
          number('topLogprobs', {
            integer: true,
            min: 2,
            expected: `an integer of 2 or more (OpenAI returns at most ${DEFAULT_TOP_LOGPROBS})`,
          }) ?? DEFAULT_TOP_LOGPROBS,
        minCoverage:
          number('minCoverage', {
            integer: false,
            min: 0,
            aboveMin: true,
            max: 1,
            expected: 'a share above 0, up to 1',
          }) ?? DEFAULT_MIN_COVERAGE,
        temperatureScaling: number('temperatureScaling', {
          integer: false,
          min: 0,
          aboveMin: true,
          expected: 'a temperature above 0 fitted by `judgment eval --fit-temperature`, or null for none',
        }),
        apiVersion,
      },
      sleep,
      shutdown,
    );
  }

  model(): string {
    return this.settings.model;
  }

  /** Questions with more options than `top_logprobs` can return (or than there are option letters). No network. */
  refusals(questions: ReadonlyMap<string, Question>): readonly string[] {
    const { connection, topLogprobs } = this.settings;
    const refused: string[] = [];
    for (const [key, question] of questions) {
      const tokens = answerTokens(question);
      const count = question.kind === 'classification' ? question.options().length : (tokens?.length ?? 0);
      if (tokens !== null && count <= topLogprobs) continue;
      refused.push(
        `The Engine connection "${connection}" reads at most ${Math.min(topLogprobs, MAX_OPTIONS)} options per Question from ` +
          `the model's top log-probabilities, but "${key}" offers ${count}. Narrow its labels (or split it into ` +
          `a Likelihood Set), or raise engines.${connection}.topLogprobs on a server that returns more.`,
      );
    }
    return refused;
  }

  /**
   * `judgment probe`: asks the connection three fixed Questions (PROBE_REQUESTS requests, sent as they are: not
   * metered, no budget) and reports what it can do for the `registered` Questions. `allowAliases` makes a server
   * answering as another model a warning instead of a failure.
   */
  probe(registered: readonly ProbedQuestion[], allowAliases = false): Promise<OpenAiProbeReport> {
    const { connection, url, model, topLogprobs, minCoverage } = this.settings;
    const target = { connection, url, model, topLogprobs, minCoverage, allowAliases, key: this.#key };
    return probeOpenAi({ ...target, send: (body) => this.http.send(body) }, registered);
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    const refused = this.refusals(request.questions);
    if (refused.length > 0) throw new EngineRejectedRequest(refused.join(' '));
    const asked = [...request.questions];
    const paid: TokenUsage[] = [];
    const readings = new Array<QuestionReading | undefined>(asked.length);
    await this.readAll(asked, request, paid, readings).catch((error: unknown) => {
      // Every 2xx answer of the round was paid for, whichever Question failed: its usage (and how many requests
      // were paid) goes with the error, and the answers read go with it too, for the Judge to record and a retry to reuse.
      if (carriesUsage(error) && paid.length > 0) error.usage = { ...sumUsage(paid), requests: paid.length };
      if (error instanceof EngineFailed) error.answered = this.answeredBefore(asked, readings);
      throw error;
    });
    const answers: Record<string, EngineAnswer> = {};
    asked.forEach(([key, question], index) => {
      answers[key] = engineAnswer(question, (readings[index] as QuestionReading).probabilities);
    });
    return { answers, provenance: this.provenance(asked, readings as QuestionReading[]) };
  }

  /** The Questions read before the round failed, with their Provenance; null when none was. */
  private answeredBefore(
    asked: ReadonlyArray<[string, Question]>,
    readings: ReadonlyArray<QuestionReading | undefined>,
  ): EngineResponse | null {
    const read = asked.filter((_, index) => readings[index] !== undefined);
    if (read.length === 0) return null;
    const done = readings.filter((reading): reading is QuestionReading => reading !== undefined);
    const answers: Record<string, EngineAnswer> = {};
    read.forEach(([key, question], index) => {
      answers[key] = engineAnswer(question, done[index].probabilities);
    });
    return { answers, provenance: this.provenance(read, done) };
  }

  /**
   * Reads every Question of the round into `readings`, `maxConcurrency` at once. In a queued job a 429 is handed to the queue only
   * while nothing of the round was paid for; once an answer was, the rest of the round is finished here, waiting out
   * the 429s as an inline call does, so no paid answer is dropped or asked again.
   */
  private async readAll(
    asked: ReadonlyArray<[string, Question]>,
    request: EngineRequest,
    paid: TokenUsage[],
    readings: Array<QuestionReading | undefined>,
  ): Promise<void> {
    const reader = (defer: boolean) => async (index: number) => {
      readings[index] = await this.ask(...asked[index], request, paid, defer);
    };
    const indexes = asked.map((_, index) => index);
    try {
      await inPool(indexes, this.settings.maxConcurrency, reader(request.limits?.defer === true));
    } catch (error) {
      if (!(error instanceof EngineRateLimitDeferred) || paid.length === 0) throw error;
      const left = indexes.filter((index) => readings[index] === undefined);
      await inPool(left, this.settings.maxConcurrency, reader(false));
    }
  }

  /**
   * Asks one Question and reads its answer. A Classification whose answer sat on `A` or `I` (words a chatting model
   * starts with) while too little of the rest was on letters is asked once more, lettered without them; that answer
   * is read instead, or refused.
   */
  private async ask(
    key: string,
    question: Question,
    request: EngineRequest,
    paid: TokenUsage[],
    /** Hand a 429 back to the queue (a queued job's round) rather than wait it out. */
    defer: boolean,
  ): Promise<QuestionReading> {
    const wordLetters = question.kind === 'classification';
    const first = await this.request(key, chatPrompt(key, question, request.evidence), paid, defer, { wordLetters });
    if (!first.inDoubt) return { ...first, requests: 1, askedAgain: null };
    const askedAgainAfter = first.letterShare as number;
    const relettered = chatPrompt(key, question, request.evidence, CLEAR_LETTERS);
    // The first answer is paid for: the second is waited for here even in a queued job, never handed back to the queue.
    const second = await this.request(key, relettered, paid, false, { wordLetters: false, askedAgainAfter });
    return {
      ...second,
      usage: sumUsage([first.usage, second.usage]),
      requests: 2,
      askedAgain: { letterShare: askedAgainAfter, requestId: first.requestId },
    };
  }

  /** Sends one prompt (with retries of 429/503/529) and reads its answer; a 2xx answer's usage goes in `paid`. */
  private async request(
    key: string,
    prompt: ChatPrompt,
    paid: TokenUsage[],
    defer: boolean,
    check: Pick<ReadingRules, 'wordLetters' | 'askedAgainAfter'>,
  ): Promise<CompletionReading> {
    const body = completionRequest(this.settings.model, prompt, this.settings.topLogprobs);
    const response = await this.http.send(body, { deferRateLimit: defer });
    const header = response.headers['x-request-id'];
    const origin: ResponseOrigin = {
      connection: this.settings.connection,
      requestId: typeof header === 'string' && header !== '' ? shorten(redact(header, this.#key), 200) : null,
      asked: { endpoint: this.http.endpoint, url: this.settings.url },
    };
    if (response.status < 200 || response.status > 299) {
      throw statusError(response.status, response.text, origin, response.attempts, this.#key, openAiErrorReason);
    }
    const { minCoverage, temperatureScaling: temperature, topLogprobs } = this.settings;
    const rules: ReadingRules = { key, tokens: prompt.tokens, minCoverage, temperature, topLogprobs, ...check };
    try {
      const reading = readCompletion(response.text, rules, origin, this.#key);
      paid.push(reading.usage);
      this.checkServedModel(reading.model);
      return reading;
    } catch (error) {
      if (error instanceof MalformedEngineResponse) paid.push(error.usage ?? {});
      throw error;
    }
  }

  /**
   * Warns once per model when the server answers as another model than the connection pins (llama.cpp's server
   * ignores the model asked): a dated snapshot of the pinned alias is the same model, and Azure names the model behind
   * a deployment, so neither is warned about. `judgment probe` reports the same as a failure.
   */
  private checkServedModel(served: string): void {
    const pinned = this.settings.model;
    if (this.settings.apiVersion !== null || this.warnedModels.has(served) || servesPinned(pinned, served)) return;
    this.warnedModels.add(served);
    this.logger.warn(
      logEntry(
        'The Engine server answers as another model than the connection pins: calibrated thresholds may not hold. ' +
          `Pin the model it serves in engines.${this.settings.connection}.model, or point the connection at the ` +
          'server of the pinned model.',
        { connection: this.settings.connection, pinned, served },
      ),
    );
  }

  /** One Provenance for the round: the model as served, fingerprints, request ids, summed usage, coverage. */
  private provenance(asked: ReadonlyArray<[string, Question]>, readings: readonly QuestionReading[]): Provenance {
    const byKey = <T>(pick: (reading: QuestionReading) => T) =>
      Object.fromEntries(asked.map(([key], index) => [key, pick(readings[index])]));
    const distinct = (values: Array<string | null>) => [...new Set(values.filter((value) => value !== null))];
    const fingerprints = distinct(readings.map((reading) => reading.systemFingerprint));
    const requestIds = distinct(readings.map((reading) => reading.requestId));
    const askedAgain = asked.flatMap(([key], index) => {
      const again = readings[index].askedAgain;
      return again === null ? [] : [[key, { letterShare: round(again.letterShare), firstRequestId: again.requestId }]];
    });
    const requests = readings.reduce((total, reading) => total + reading.requests, 0);
    // Options read as 0 because the list left them out, with what is known of them.
    const unlisted = asked.flatMap(([key, question], index) => {
      const absent = readings[index].unlisted;
      if (absent === null) return [];
      const names = optionNames(question);
      const options = absent.options.map((position) => names[position]);
      return [[key, { options, below: absent.below, atMost: round(absent.atMost) }]];
    });
    return new Provenance(
      this.settings.connection,
      readings[0].model,
      requestIds[0] ?? null,
      {
        usage: { ...sumUsage(readings.map((reading) => reading.usage)), requests },
        models: distinct(readings.map((reading) => reading.model)),
        systemFingerprint:
          fingerprints.length === 0 ? null : fingerprints.length === 1 ? fingerprints[0] : fingerprints,
        requestIds: byKey((reading) => reading.requestId),
        coverage: byKey((reading) => round(reading.coverage)),
        masses: byKey((reading) => reading.masses.map(round)),
        ...(unlisted.length === 0 ? {} : { unlisted: Object.fromEntries(unlisted) }),
        ...(askedAgain.length === 0 ? {} : { askedAgain: Object.fromEntries(askedAgain) }),
        ...(this.settings.temperatureScaling === null ? {} : { temperatureScaling: this.settings.temperatureScaling }),
      },
      byKey((reading) => reading.model),
    );
  }
}

/** A Question's options as its answer names them: yes and no, the labels, or the levels. */
function optionNames(question: Question): readonly string[] {
  switch (question.kind) {
    case 'likelihood':
      return ['yes', 'no'];
    case 'classification':
      return question.options();
    case 'rating':
      return question.levels;
  }
}

/** A Question's probabilities as the Engine answer of its kind. */
function engineAnswer(question: Question, probabilities: readonly number[]): EngineAnswer {
  switch (question.kind) {
    case 'likelihood':
      return probabilities[0];
    case 'classification':
      return Object.fromEntries(question.options().map((option, index) => [option, probabilities[index]]));
    case 'rating':
      return [...probabilities];
  }
}

/** Input and output tokens of the round's paid answers, summed (a count an answer left out counts 0). */
function sumUsage(usages: readonly TokenUsage[]): { input_tokens: number; output_tokens: number } {
  const sum = (pick: (usage: TokenUsage) => number | undefined) =>
    usages.reduce((total, usage) => total + (pick(usage) ?? 0), 0);
  return { input_tokens: sum((usage) => usage.input_tokens), output_tokens: sum((usage) => usage.output_tokens) };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * Runs `work` over `items` with at most `limit` in flight, results in order. After the first failure no further item
 * starts; the failure is thrown once those in flight have settled.
 */
async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}
