import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { inspect } from 'node:util';
import { Provenance } from '../../assessment/provenance';
import {
  EngineCallInterrupted,
  EngineRateLimitDeferred,
  EngineNotConfigured,
  EngineRejectedRequest,
  MalformedEngineResponse,
} from '../../errors';
import type { EngineConnectionOptions } from '../../judgment.options';
import type { Question } from '../../questions/question';
import { connectionSettings } from '../connection.settings';
import { limitMode } from '../limits/limit-context';
import type { Engine, EngineRequest, EngineResponse } from '../engine.interface';
import { redact, shorten } from '../http/foreign-json';
import { type Sleep, attemptDeadline, sleepUnlessAborted } from '../http/request-limits';
import { statusError, transportError, type ResponseOrigin } from './jev.errors';
import { inHttpSpan } from '../../telemetry/judgment.tracing';
import { isLoopbackUrl } from './loopback';
import { type JevReading, readResponse, reportedUsage, requestBody } from './jev.wire';
import { RETRYABLE_STATUSES, retryWait } from './retry';

/** Where the hosted Jev answers when a connection sets no `url`. */
export const DEFAULT_JEV_URL = 'https://api.typesafe.ai';

/** Everything the Jev driver needs to ask one connection. */
export interface JevSettings {
  /** The connection name, recorded as the Provenance engine. */
  readonly connection: string;
  /** Bearer token; null sends no Authorization header. */
  readonly key: string | null;
  /** Base URL without trailing slashes. */
  readonly url: string;
  readonly model: string;
  /** Seconds per attempt. */
  readonly timeout: number;
  /** Retries of 429/529 answers: up to 1 + retries requests. */
  readonly retries: number;
  /** Most options a Classification may offer; null for no limit beyond the package's. */
  readonly maxLabels: number | null;
  /** Largest response body read, in bytes. */
  readonly maxResponseBytes: number;
}

/** How the driver waits before a retry; replaceable so tests can observe the computed waits. */
export type { Sleep };

/** The Jev driver: TypeSafe's hosted Jev and self-hosted Laya over the System One wire (`POST /v1/systemone`). */
export class JevEngine implements Engine {
  private readonly http: AxiosInstance;
  private readonly endpoint: string;
  private readonly settings: Omit<JevSettings, 'key'>;
  /** The API key lives only here (an ES private field: not in JSON, util.inspect or the axios defaults). */
  readonly #key: string | null;

  constructor(
    settings: JevSettings,
    private readonly sleep: Sleep = sleepUnlessAborted,
    /** Aborts when the app shuts down: retry waits are cancelled and nothing more is sent. */
    private readonly shutdown?: AbortSignal,
  ) {
    const { key, ...visible } = settings;
    this.#key = key;
    this.settings = visible;
    this.endpoint = `${settings.url}/v1/systemone`;
    this.http = axios.create({
      timeout: Math.round(settings.timeout * 1000),
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      validateStatus: () => true,
      maxRedirects: 0,
      maxContentLength: settings.maxResponseBytes,
    });
    // The Authorization header is added per request, so it never sits in the instance's defaults.
    this.http.interceptors.request.use((config) => {
      if (this.#key !== null) config.headers.set('Authorization', `Bearer ${this.#key}`);
      return config;
    });
  }

  /** What the driver shows when logged or serialised: never the key. */
  toJSON(): { connection: string; driver: string; model: string; url: string } {
    return { connection: this.settings.connection, driver: 'jev', model: this.settings.model, url: this.settings.url };
  }

  [inspect.custom](): string {
    return `JevEngine ${JSON.stringify(this.toJSON())}`;
  }

  /** Checks a connection's options and builds its driver; EngineNotConfigured names what to fix. */
  static connect(
    connection: string,
    config: EngineConnectionOptions,
    sleep?: Sleep,
    shutdown?: AbortSignal,
  ): JevEngine {
    const key = typeof config.key === 'string' && config.key !== '' ? config.key : null;
    if (typeof config.model !== 'string' || config.model.trim() === '') {
      throw new EngineNotConfigured(
        `The Engine connection "${connection}" has no model. Set engines.${connection}.model to the model it asks, ` +
          'pinned to an exact version such as "jev-1.13.0".',
      );
    }
    const url = String(config.url ?? DEFAULT_JEV_URL).replace(/\/+$/, '');
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new EngineNotConfigured(
        `The Engine connection "${connection}" has an invalid url (${JSON.stringify(config.url)}): set ` +
          `engines.${connection}.url to the server's http(s) base URL, such as "${DEFAULT_JEV_URL}".`,
      );
    }
    if (key === null) checkKeyNotNeeded(connection, url, config.requireKey);
    const { timeout, retries, maxLabels, maxResponseBytes } = connectionSettings(connection, config);
    return new JevEngine(
      { connection, key, url, model: config.model, timeout, retries, maxLabels, maxResponseBytes },
      sleep,
      shutdown,
    );
  }

  model(): string {
    return this.settings.model;
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    this.checkLabels(request.questions);
    const body = requestBody(this.settings.model, request.evidence, request.questions);
    const { response, attempts } = await this.send(body);
    const header = response.headers['x-typesafe-request-id'];
    const origin: ResponseOrigin = {
      connection: this.settings.connection,
      requestId: typeof header === 'string' && header !== '' ? shorten(redact(header, this.#key), 200) : null,
    };
    if (response.status < 200 || response.status > 299) {
      throw statusError(response.status, String(response.data ?? ''), origin, attempts, this.#key);
    }
    const text = String(response.data ?? '');
    let reading: JevReading;
    try {
      reading = readResponse(text, request.questions, origin, this.#key);
    } catch (error) {
      // A 2xx answer is paid for even when it is rejected: its usage goes with the error, to be metered.
      if (error instanceof MalformedEngineResponse) error.usage = reportedUsage(text);
      throw error;
    }
    return {
      answers: reading.answers,
      provenance: new Provenance(origin.connection, reading.model, origin.requestId, {
        usage: reading.usage,
        confidence: reading.confidence,
        response: reading.unread,
      }),
    };
  }

  /** Classifications with more options than the connection accepts (`maxLabels`, e.g. Laya's 20). No network. */
  refusals(questions: ReadonlyMap<string, Question>): string[] {
    const limit = this.settings.maxLabels;
    if (limit === null) return [];
    const refusals: string[] = [];
    for (const [key, question] of questions) {
      if (question.kind === 'classification' && question.options().length > limit) {
        refusals.push(
          `The Engine connection "${this.settings.connection}" answers Classifications of at most ${limit} options, ` +
            `but "${key}" offers ${question.options().length}. Narrow its labels, or ask it on another connection ` +
            `(engines.${this.settings.connection}.maxLabels sets the limit).`,
        );
      }
    }
    return refusals;
  }

  /** Refuses, before asking, what the connection cannot ask (see `refusals`). */
  private checkLabels(questions: ReadonlyMap<string, Question>): void {
    const [refusal] = this.refusals(questions);
    if (refusal !== undefined) throw new EngineRejectedRequest(refusal);
  }

  /**
   * Posts the body, retrying 429/529 answers; returns the last response and how many requests were sent. Each
   * request has a wall-clock deadline of `timeout`; once the app shuts down, a retry wait is cancelled and no retry is
   * sent (EngineCallInterrupted). A first request still goes out: a running job is let finish. In a queued job
   * (`limitMode().defer`) a 429 is not waited for here: it is handed to the queue, which pauses for retry-after.
   */
  private async send(body: string): Promise<{ response: AxiosResponse<string>; attempts: number }> {
    const { connection, timeout, retries } = this.settings;
    for (let attempts = 1; ; attempts++) {
      const deadline = attemptDeadline(timeout);
      const post = () => this.http.post<string>(this.endpoint, body, { signal: deadline });
      const response = await inHttpSpan('POST', this.endpoint, attempts - 1, post).catch((error: unknown) => {
        throw transportError(error, connection, this.endpoint, timeout, deadline, this.settings.maxResponseBytes);
      });
      if (response.status === 429 && limitMode().defer) {
        throw new EngineRateLimitDeferred(
          `The Engine rate-limited the request (HTTP 429, connection "${connection}"); the queue pauses for its ` +
            'retry-after.',
          retryWait(retryHeaders(response), attempts),
        );
      }
      if (!RETRYABLE_STATUSES.has(response.status) || attempts > retries) return { response, attempts };
      try {
        await this.sleep(retryWait(retryHeaders(response), attempts), this.shutdown);
      } catch (error) {
        if (this.shutdown?.aborted) throw interrupted(connection, attempts + 1);
        throw error;
      }
    }
  }
}

/** The variables `judgmentOptionsFromEnv` reads each connection's key from, named in the error. */
const KEY_VARIABLES: Readonly<Record<string, string>> = {
  jev: 'TYPESAFE_API_KEY',
  laya: 'LAYA_API_KEY',
  openai: 'OPENAI_API_KEY',
};

/**
 * The key rule: a connection without a key is refused unless its url is a loopback address (a server on this
 * machine, like the Jev simulator) — or unless `requireKey` says otherwise, which wins either way.
 */
export function checkKeyNotNeeded(connection: string, url: string, requireKey: boolean | undefined): void {
  if (requireKey === false || (requireKey === undefined && isLoopbackUrl(url))) return;
  const variable = Object.hasOwn(KEY_VARIABLES, connection) ? ` (${KEY_VARIABLES[connection]})` : '';
  const setKey = `Set engines.${connection}.key${variable}`;
  throw new EngineNotConfigured(
    requireKey === true
      ? `The Engine connection "${connection}" has no API key, and engines.${connection}.requireKey is true. ` +
          `${setKey}, or remove requireKey.`
      : `The Engine connection "${connection}" has no API key, and its url ${url} is not a loopback address. ` +
          `${setKey}, or point engines.${connection}.url at a server on this machine (127.0.0.1, localhost or ` +
          `[::1]), which needs none; for a remote server that needs none, set engines.${connection}.requireKey to false.`,
  );
}

function interrupted(connection: string, attempt: number): EngineCallInterrupted {
  return new EngineCallInterrupted(
    `The app is shutting down: attempt ${attempt} on the Engine connection "${connection}" was not sent. Nothing ` +
      'was recorded; a queued Judgment is left for another worker, an inline one can be assessed again.',
  );
}

function retryHeaders(response: AxiosResponse): { 'retry-after-ms'?: string; 'retry-after'?: string } {
  const text = (name: string) => {
    const value: unknown = response.headers[name];
    return value === undefined || value === null ? undefined : String(value);
  };
  return { 'retry-after-ms': text('retry-after-ms'), 'retry-after': text('retry-after') };
}
