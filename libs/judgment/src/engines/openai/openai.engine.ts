import axios, { type AxiosInstance } from 'axios';
import { setTimeout as delay } from 'node:timers/promises';
import { inspect } from 'node:util';
import { Provenance } from '../../assessment/provenance';
import { EngineNotConfigured, EngineRejectedRequest } from '../../errors';
import type { EngineConnectionOptions } from '../../judgment.options';
import type { Question } from '../../questions/question';
import { connectionNumber, connectionSettings } from '../connection.settings';
import type { Engine, EngineAnswer, EngineRequest, EngineResponse } from '../engine.interface';
import { checkKeyNotNeeded, type Sleep } from '../jev/jev.engine';
import { statusError, transportError, type ResponseOrigin } from '../jev/jev.errors';
import { retryWait } from '../jev/retry';
import { answerTokens, chatPrompt } from './openai.prompt';
import { openAiErrorReason, readCompletion, type CompletionReading } from './openai.response';
import { openAiRetryHeaders, type ResponseHeaders } from './openai.retry';

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
export interface OpenAiSettings {
  /** The connection name, recorded as the Provenance engine. */
  readonly connection: string;
  /** API key; null sends none. */
  readonly key: string | null;
  /** Base URL without trailing slashes, e.g. `https://api.openai.com/v1`. */
  readonly url: string;
  readonly model: string;
  /** Seconds per request. */
  readonly timeout: number;
  /** Retries of 429/503/529 answers per request. */
  readonly retries: number;
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

/** One HTTP answer: status, headers and the body as text. */
interface HttpAnswer {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly text: string;
}

/** One Question's reading, with the request that answered it. */
interface QuestionReading extends CompletionReading {
  readonly requestId: string | null;
}

/**
 * The `openai` driver: any OpenAI-compatible Chat Completions server (OpenAI, Azure OpenAI, vLLM, llama.cpp server,
 * Ollama). Each Question is asked in its own request for one output token with `logprobs`; its probabilities are the
 * answer tokens' shares of the first token's probability mass.
 */
export class OpenAiEngine implements Engine {
  private readonly http: AxiosInstance;
  private readonly endpoint: string;
  private readonly settings: Omit<OpenAiSettings, 'key'>;
  /** The API key lives only here (an ES private field: not in JSON, util.inspect or the axios defaults). */
  readonly #key: string | null;

  constructor(
    settings: OpenAiSettings,
    private readonly sleep: Sleep = delay,
  ) {
    const { key, ...visible } = settings;
    this.#key = key;
    this.settings = visible;
    this.endpoint =
      settings.apiVersion === null
        ? `${settings.url}/chat/completions`
        : `${settings.url}/openai/deployments/${encodeURIComponent(settings.model)}/chat/completions` +
          `?api-version=${encodeURIComponent(settings.apiVersion)}`;
    this.http = axios.create({
      timeout: Math.round(settings.timeout * 1000),
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      validateStatus: () => true,
      maxRedirects: 0,
    });
    // The key is added per request, so it never sits in the instance's defaults.
    this.http.interceptors.request.use((config) => {
      if (this.#key === null) return config;
      if (this.settings.apiVersion === null) config.headers.set('Authorization', `Bearer ${this.#key}`);
      else config.headers.set('api-key', this.#key);
      return config;
    });
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
  static connect(connection: string, config: EngineConnectionOptions, sleep?: Sleep): OpenAiEngine {
    const option = (name: string) => `engines.${connection}.${name}`;
    if (typeof config.model !== 'string' || config.model.trim() === '') {
      throw new EngineNotConfigured(
        `The Engine connection "${connection}" has no model. Set ${option('model')} to the model it asks, pinned to ` +
          'a snapshot such as "gpt-4o-mini-2024-07-18" (or the model name your vLLM, llama.cpp or Ollama server serves).',
      );
    }
    const url = String(config.url ?? DEFAULT_OPENAI_URL).replace(/\/+$/, '');
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new EngineNotConfigured(
        `The Engine connection "${connection}" has an invalid url (${JSON.stringify(config.url)}): set ` +
          `${option('url')} to the server's http(s) base URL, such as "${DEFAULT_OPENAI_URL}" or "http://localhost:8000/v1".`,
      );
    }
    const apiVersion = config.apiVersion ?? null;
    if (apiVersion !== null && (typeof apiVersion !== 'string' || apiVersion.trim() === '')) {
      throw new EngineNotConfigured(
        `The Engine connection "${connection}" has an invalid apiVersion (${JSON.stringify(apiVersion)}): set ` +
          `${option('apiVersion')} to the Azure OpenAI api-version, such as "2024-10-21", or leave it out.`,
      );
    }
    const key = typeof config.key === 'string' && config.key !== '' ? config.key : null;
    if (key === null) checkKeyNotNeeded(connection, url, config.requireKey);
    const { timeout, retries } = connectionSettings(connection, config);
    const number = (name: string, rule: Parameters<typeof connectionNumber>[3]) =>
      connectionNumber(connection, config, name, rule);
    return new OpenAiEngine(
      {
        connection,
        key,
        url,
        model: config.model,
        timeout,
        retries,
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
        `The Engine connection "${connection}" reads at most ${Math.min(topLogprobs, 26)} options per Question from ` +
          `the model's top log-probabilities, but "${key}" offers ${count}. Narrow its labels (or split it into ` +
          `a Likelihood Set), or raise engines.${connection}.topLogprobs on a server that returns more.`,
      );
    }
    return refused;
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    const refused = this.refusals(request.questions);
    if (refused.length > 0) throw new EngineRejectedRequest(refused.join(' '));
    const asked = [...request.questions];
    const readings = await inPool(asked, this.settings.maxConcurrency, ([key, question]) =>
      this.ask(key, question, request),
    );
    const answers: Record<string, EngineAnswer> = {};
    asked.forEach(([key, question], index) => {
      answers[key] = engineAnswer(question, readings[index].probabilities);
    });
    return { answers, provenance: this.provenance(asked, readings) };
  }

  /** Asks one Question (with retries of 429/503/529) and reads its answer. */
  private async ask(key: string, question: Question, request: EngineRequest): Promise<QuestionReading> {
    const prompt = chatPrompt(key, question, request.evidence);
    const body = JSON.stringify({
      model: this.settings.model,
      messages: prompt.messages,
      temperature: 0,
      max_tokens: 1,
      n: 1,
      logprobs: true,
      top_logprobs: this.settings.topLogprobs,
    });
    for (let attempts = 1; ; attempts++) {
      const response = await this.post(body);
      const header = response.headers['x-request-id'];
      const origin: ResponseOrigin = {
        connection: this.settings.connection,
        requestId: typeof header === 'string' && header !== '' ? header : null,
      };
      if (response.status >= 200 && response.status <= 299) {
        const { minCoverage, temperatureScaling: temperature } = this.settings;
        const reading = readCompletion(response.text, { key, tokens: prompt.tokens, minCoverage, temperature }, origin);
        return { ...reading, requestId: origin.requestId };
      }
      if (!RETRYABLE.has(response.status) || attempts > this.settings.retries) {
        throw statusError(response.status, response.text, origin, attempts, this.#key, openAiErrorReason);
      }
      await this.sleep(retryWait(openAiRetryHeaders(response.headers), attempts));
    }
  }

  /** The one HTTP call: POSTs the body and returns status, headers and text; transport failures as EngineFailed. */
  private async post(body: string): Promise<HttpAnswer> {
    const response = await this.http.post<string>(this.endpoint, body).catch((error: unknown) => {
      throw transportError(error, this.settings.connection, this.endpoint, this.settings.timeout);
    });
    return { status: response.status, headers: response.headers as ResponseHeaders, text: String(response.data ?? '') };
  }

  /** One Provenance for the round: the model as served, fingerprints, request ids, summed usage, coverage. */
  private provenance(asked: ReadonlyArray<[string, Question]>, readings: readonly QuestionReading[]): Provenance {
    const byKey = <T>(pick: (reading: QuestionReading) => T) =>
      Object.fromEntries(asked.map(([key], index) => [key, pick(readings[index])]));
    const sum = (pick: (reading: QuestionReading) => number | null) =>
      readings.reduce((total, reading) => total + (pick(reading) ?? 0), 0);
    const distinct = (values: Array<string | null>) => [...new Set(values.filter((value) => value !== null))];
    const fingerprints = distinct(readings.map((reading) => reading.systemFingerprint));
    const requestIds = distinct(readings.map((reading) => reading.requestId));
    return new Provenance(this.settings.connection, readings[0].model, requestIds[0] ?? null, {
      usage: {
        input_tokens: sum((reading) => reading.promptTokens),
        output_tokens: sum((reading) => reading.completionTokens),
        requests: readings.length,
      },
      models: distinct(readings.map((reading) => reading.model)),
      systemFingerprint: fingerprints.length === 0 ? null : fingerprints.length === 1 ? fingerprints[0] : fingerprints,
      requestIds: byKey((reading) => reading.requestId),
      coverage: byKey((reading) => round(reading.coverage)),
      masses: byKey((reading) => reading.masses.map(round)),
      ...(this.settings.temperatureScaling === null ? {} : { temperatureScaling: this.settings.temperatureScaling }),
    });
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
