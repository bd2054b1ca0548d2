import { inspect } from 'node:util';
import { Provenance } from '../../assessment/provenance';
import { EngineRejectedRequest, MalformedEngineResponse } from '../../errors';
import type { EngineConnectionOptions } from '../../judgment.options';
import type { Question } from '../../questions/question';
import { type HttpConnectionSettings, httpConnectionSettings } from '../connection.settings';
import type { Engine, EngineRequest, EngineResponse } from '../engine.interface';
import { EngineHttpClient, retryAfterHeaders } from '../http/engine-http.client';
import { redact, shorten } from '../http/foreign-json';
import type { Sleep } from '../http/request-limits';
import { RETRYABLE_STATUSES } from '../http/retry';
import { statusError, type ResponseOrigin } from '../http/status-errors';
import { type JevReading, readResponse, reportedUsage, requestBody } from './jev.wire';

/** Where the hosted Jev answers when a connection sets no `url`. */
export const DEFAULT_JEV_URL = 'https://api.typesafe.ai';

/** Everything the Jev driver needs to ask one connection. */
export interface JevSettings extends Omit<HttpConnectionSettings, 'budget'> {
  /** The connection name, recorded as the Provenance engine. */
  readonly connection: string;
}

/** How the driver waits before a retry; replaceable so tests can observe the computed waits. */
export type { Sleep };

/** The Jev driver: TypeSafe's hosted Jev and self-hosted Laya over the System One wire (`POST /v1/systemone`). */
export class JevEngine implements Engine {
  private readonly http: EngineHttpClient;
  private readonly settings: Omit<JevSettings, 'key'>;
  /** The API key, to blank it out of what the Engine sends back (an ES private field). */
  readonly #key: string | null;

  constructor(
    settings: JevSettings,
    sleep?: Sleep,
    /** Aborts when the app shuts down: retry waits are cancelled and nothing more is sent. */
    shutdown?: AbortSignal,
  ) {
    const { key, ...visible } = settings;
    this.#key = key;
    this.settings = visible;
    this.http = new EngineHttpClient(
      {
        ...visible,
        endpoint: `${settings.url}/v1/systemone`,
        retryable: RETRYABLE_STATUSES,
        retryHeaders: retryAfterHeaders,
        authorization: (secret) => ['Authorization', `Bearer ${secret}`],
      },
      key,
      sleep,
      shutdown,
    );
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
    const { budget: _budget, ...settings } = httpConnectionSettings(connection, config, {
      defaultUrl: DEFAULT_JEV_URL,
      model: 'pinned to an exact version such as "jev-1.13.0"',
      urls: `"${DEFAULT_JEV_URL}"`,
    });
    return new JevEngine({ connection, ...settings }, sleep, shutdown);
  }

  model(): string {
    return this.settings.model;
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    this.checkLabels(request.questions);
    const body = requestBody(this.settings.model, request.evidence, request.questions);
    const response = await this.http.send(body, { deferRateLimit: request.limits?.defer === true });
    const header = response.headers['x-typesafe-request-id'];
    const origin: ResponseOrigin = {
      connection: this.settings.connection,
      requestId: typeof header === 'string' && header !== '' ? shorten(redact(header, this.#key), 200) : null,
      asked: { endpoint: this.http.endpoint, url: this.settings.url },
    };
    if (response.status < 200 || response.status > 299) {
      throw statusError(response.status, response.text, origin, response.attempts, this.#key);
    }
    const text = response.text;
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
}
