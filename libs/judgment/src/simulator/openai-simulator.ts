/**
 * Loopback HTTP server speaking the OpenAI Chat Completions wire (`POST /v1/chat/completions`, and Azure's
 * `POST /openai/deployments/{deployment}/chat/completions?api-version=…`) as the OpenAI API reference documents it:
 * `logprobs`/`top_logprobs`, `usage`, `system_fingerprint`, the `x-request-id` and `x-ratelimit-*` headers, and
 * `{ error: { message, type, param, code } }` bodies. With `dialect: 'llama-server'` it answers as llama.cpp's
 * server does instead: token ids, `model` ignored, no request-id or rate-limit headers, paths with or without `/v1`.
 * Answers come from a simulated model (openai-answers.ts).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { firstTokenLogprobs, OPENAI_BEHAVIOURS, type OpenAiBehaviour } from './openai-answers';
import { fnv1a } from '../fingerprint/seeded-random';
import { SimulatorServer } from './simulator.server';
import { checkNoise } from './answer-noise';
import type { LoggedRequest, SimulatorNoise, SimulatorServerOptions } from './simulator.types';

export const DEFAULT_OPENAI_MODEL = 'sim-4o-2026-09-17';
/** Aliases the simulator resolves to its model, as OpenAI resolves `gpt-4o` to a dated snapshot. */
export const OPENAI_ALIASES: readonly string[] = ['sim-4o', 'sim-4o-latest'];
/** The most `top_logprobs` OpenAI accepts. */
export const MAX_TOP_LOGPROBS = 20;

/**
 * Whose server the simulator answers as. `openai`: the OpenAI API (request ids, rate-limit headers, `model` checked,
 * `refusal` fields, no token ids). `llama-server`: llama.cpp's server (token `id`s, special tokens rendered `""`, the
 * `model` asked ignored and its own reported, no request-id or rate-limit headers, paths served with and without
 * `/v1`, no `refusal` fields, any `top_logprobs` count).
 */
export type OpenAiDialect = 'openai' | 'llama-server';

export interface OpenAiSimulatorOptions extends SimulatorServerOptions {
  /** How the simulated model answers (default `answer`); `behave()` switches it while running. */
  behaviour?: OpenAiBehaviour;
  /** Whose server it answers as (default `openai`). */
  dialect?: OpenAiDialect;
  /**
   * The most `top_logprobs` entries it returns, whatever is asked (as some Azure versions cap them at 5); a request
   * for more is answered with this many. Default: as many as asked.
   */
  topLogprobsCap?: number;
  /** When set, requests need `Authorization: Bearer <apiKey>` (or Azure's `api-key` header): otherwise 401. */
  apiKey?: string;
  /** The dated model id it reports; its aliases resolve to it. Default `sim-4o-2026-09-17`. */
  model?: string;
  /** `system_fingerprint` it reports; null leaves it out (as many self-hosted servers do). */
  systemFingerprint?: string | null;
  /**
   * Answer prompts that carry `[[truth=…]]` with a model-dependent noise around it; the profiles' model names are
   * accepted (and reported) beside the simulator's own model.
   */
  noise?: SimulatorNoise;
}

/** An error status with the OpenAI error body (default per status) and, for 429, the rate-limit headers. */
export interface OpenAiStatusFault {
  status: 400 | 401 | 403 | 404 | 429 | 500 | 502 | 503 | 529;
  /** Response body; a string is sent raw. */
  body?: unknown;
  /** `retry-after` header (seconds); left out unless given. */
  retryAfter?: string | number;
  /** 429: `x-ratelimit-reset-requests` (default `1s`) and `x-ratelimit-reset-tokens` (default `6m0s`). */
  resetRequests?: string;
  resetTokens?: string;
  headers?: Record<string, string>;
}

/** Ways to break one otherwise valid answer, or the connection. */
export type OpenAiFault =
  | OpenAiStatusFault
  | { kind: 'hang' }
  | { kind: 'disconnect' }
  /** The first half of the JSON text, status 200. */
  | { kind: 'truncated' }
  /** Two choices although `n` asked for one. */
  | { kind: 'two-choices' }
  /** This answer as that behaviour (`omit-logprobs`, `off-options`, `chatty`, …) would give it. */
  | { kind: OpenAiBehaviour };

const DEFAULT_ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'Invalid request.', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { message: 'You are not allowed to access this project.', type: 'invalid_request_error', code: null },
  404: {
    message: 'The model does not exist or you do not have access to it.',
    type: 'invalid_request_error',
    code: 'model_not_found',
  },
  429: {
    message: 'Rate limit reached for requests. Please try again in 1s.',
    type: 'requests',
    code: 'rate_limit_exceeded',
  },
  500: { message: 'The server had an error while processing your request.', type: 'server_error', code: null },
  502: { message: 'Bad gateway.', type: 'server_error', code: null },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', code: null },
  529: { message: 'Overloaded.', type: 'server_error', code: null },
};

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const JSON_TYPE = 'application/json';

interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly entry?: LoggedRequest;
}

/** A 4xx answer to a request the API would refuse: the message and the parameter it names. */
class Invalid {
  constructor(
    readonly message: string,
    readonly param: string | null = null,
    readonly status = 400,
    readonly code: string | null = null,
  ) {}
}

export class OpenAiSimulator extends SimulatorServer<OpenAiFault> {
  readonly mode = 'openai' as const;
  readonly model: string;
  readonly apiKey?: string;
  readonly dialect: OpenAiDialect;
  readonly systemFingerprint: string | null;
  /** Noise around a known truth per model, or undefined. */
  readonly noise?: SimulatorNoise;
  private readonly topLogprobsCap: number;
  private current: OpenAiBehaviour;
  private readonly idPrefix = randomBytes(4).toString('hex');
  private counter = 0;

  constructor(options: OpenAiSimulatorOptions = {}) {
    super(options);
    this.dialect = options.dialect ?? 'openai';
    this.model = options.model ?? (this.dialect === 'llama-server' ? 'tiny-sim' : DEFAULT_OPENAI_MODEL);
    this.apiKey = options.apiKey;
    this.current = options.behaviour ?? 'answer';
    this.topLogprobsCap = options.topLogprobsCap ?? Infinity;
    const fingerprint = this.dialect === 'llama-server' ? 'b0-unknown' : `fp_${fnv1a(this.model).toString(16)}`;
    this.systemFingerprint = options.systemFingerprint === undefined ? fingerprint : options.systemFingerprint;
    if (options.noise) {
      checkNoise(options.noise);
      this.noise = options.noise;
    }
  }

  /** The noise profile of `model`, when noise is on and the model has one. */
  private profileOf(model: string) {
    return this.noise && Object.hasOwn(this.noise.profiles, model) ? this.noise.profiles[model] : undefined;
  }

  /** How the simulated model answers now. */
  get behaviour(): OpenAiBehaviour {
    return this.current;
  }

  /** Switches how the simulated model answers from the next request on (a model upgrade, a collapsed signal). */
  behave(behaviour: OpenAiBehaviour): this {
    if (!OPENAI_BEHAVIOURS.includes(behaviour)) throw new Error(`Unknown behaviour "${String(behaviour)}"`);
    this.current = behaviour;
    return this;
  }

  private get llama(): boolean {
    return this.dialect === 'llama-server';
  }

  /** Base URL of the OpenAI API while running, e.g. `http://127.0.0.1:8787/v1`; the Azure routes sit at the root. */
  get url(): string | undefined {
    return this.baseUrl === undefined ? undefined : `${this.baseUrl}/v1`;
  }

  /** The server's root, e.g. `http://127.0.0.1:8787` (an Azure connection's url). */
  get root(): string | undefined {
    return this.baseUrl;
  }

  protected dispatch(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    let body: unknown = raw === '' ? undefined : raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // Kept as text: the log shows what arrived.
    }
    // OpenAI's request id goes in a header; llama-server sends none, only the body's `id`.
    const serial = (++this.counter).toString(16).padStart(8, '0');
    const requestId = this.llama ? `chatcmpl-${this.idPrefix}${serial}` : `req_${this.idPrefix}${serial}`;
    const entry: LoggedRequest = { method, path, headers: req.headers, body, at: Date.now(), status: 0, requestId };
    this.logRequest(entry);
    const ex: Exchange = { req, res, requestId, entry };

    const azure = !this.llama && /^\/openai\/deployments\/[^/]+\/chat\/completions$/.test(path);
    const served = this.llama ? path.replace(/^\/v1(?=\/)/, '') : path;
    if (path === '/health') return this.sendJson(ex, 200, { status: 'ok' });
    if ((this.llama ? served === '/models' : path === '/v1/models') && method === 'GET') {
      const auth = this.authFailure(req, false);
      if (auth) return this.error(ex, auth);
      return this.sendJson(ex, 200, this.models());
    }
    if ((this.llama ? served !== '/chat/completions' : path !== '/v1/chat/completions') && !azure) {
      if (this.llama) return this.error(ex, new Invalid('File Not Found', null, 404));
      return this.error(ex, new Invalid(`Invalid URL (${method} ${path})`, null, 404, 'unknown_url'));
    }
    if (method !== 'POST') return this.error(ex, new Invalid(`Invalid method for URL (${method} ${path})`, null, 405));
    if (azure && !url.searchParams.get('api-version')) {
      return this.error(ex, new Invalid('Missing required query parameter: api-version', 'api-version', 404));
    }
    const auth = this.authFailure(req, azure);
    if (auth) return this.error(ex, auth);
    const { window, refusedForMs } = this.admit(String(req.headers.authorization ?? req.headers['api-key'] ?? ''));
    if (refusedForMs !== undefined) {
      const reset = `${refusedForMs}ms`;
      const left = this.remaining(window);
      return this.sendJson(
        ex,
        429,
        { error: { ...DEFAULT_ERRORS[429], param: null } },
        {
          ...this.rateHeaders('0', String(left.tokens === Infinity ? 1999000 : left.tokens), reset, reset),
          ...SimulatorServer.retryHeaders(refusedForMs),
        },
      );
    }

    const fault = this.faults.shift();
    if (fault && 'status' in fault) return this.statusFault(ex, fault);
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'disconnect') {
      req.socket.destroy();
      return;
    }
    const request =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? check(body as Record<string, unknown>, this.dialect)
        : null;
    if (request === null) {
      return this.error(ex, new Invalid('We could not parse the JSON body of your request. Send valid JSON.'));
    }
    if (request instanceof Invalid) return this.error(ex, request);
    if (
      !azure &&
      !this.llama &&
      request.model !== this.model &&
      !OPENAI_ALIASES.includes(request.model) &&
      !this.profileOf(request.model)
    ) {
      const message = `The model \`${request.model}\` does not exist or you do not have access to it.`;
      return this.error(ex, new Invalid(message, null, 404, 'model_not_found'));
    }
    const completion = this.complete(ex, request, fault);
    if (window) window.tokens += (completion.usage as { prompt_tokens: number }).prompt_tokens;
    const text = JSON.stringify(completion);
    if (fault?.kind === 'truncated') return this.send(ex, 200, text.slice(0, Math.floor(text.length / 2)));
    if (this.llama) return this.send(ex, 200, text);
    const left = this.remaining(window);
    const count = (value: number, otherwise: string) => (value === Infinity ? otherwise : String(value));
    this.send(
      ex,
      200,
      text,
      this.rateHeaders(count(left.requests, '9999'), count(left.tokens, '1999000'), '6ms', '0s'),
    );
  }

  /** `GET /v1/models`: the model and its aliases (OpenAI), or the one model llama-server serves. */
  private models(): Record<string, unknown> {
    const created = Math.floor(Date.parse('2026-09-17T00:00:00Z') / 1000);
    if (this.llama) {
      return {
        object: 'list',
        data: [{ id: this.model, aliases: [this.model], object: 'model', created, owned_by: 'llamacpp' }],
      };
    }
    const data = [this.model, ...OPENAI_ALIASES].map((id) => ({ id, object: 'model', created, owned_by: 'system' }));
    return { object: 'list', data };
  }

  private complete(ex: Exchange, request: CheckedRequest, fault: OpenAiFault | undefined): Record<string, unknown> {
    const kind = fault && 'kind' in fault ? fault.kind : undefined;
    const behaviour = kind !== undefined && isBehaviour(kind) ? kind : this.behaviour;
    const conversation = request.messages.map((message) => message.text).join('\n');
    const lastUser = [...request.messages].reverse().find((message) => message.role === 'user')?.text ?? '';
    const tokenIds = this.llama;
    // The model that answers: one with a noise profile when the request names it, else the simulator's own.
    const model = !this.llama && this.profileOf(request.model) ? request.model : this.model;
    const profile = this.profileOf(model);
    const noisy = profile && { noise: this.noise!, profile, model };
    const ask = (as: Exclude<OpenAiBehaviour, 'omit-logprobs'>, count: number) =>
      firstTokenLogprobs({ conversation, lastUser, behaviour: as, count, tokenIds, noisy });
    const listed = Math.min(request.topLogprobs, this.topLogprobsCap);
    const top = behaviour === 'omit-logprobs' ? [] : ask(behaviour, Math.max(1, listed));
    const [chosen] = top.length > 0 ? top : ask('answer', 1);
    const logprobs =
      request.logprobs && behaviour !== 'omit-logprobs'
        ? {
            content: [{ ...chosen, top_logprobs: listed === 0 ? [] : top }],
            ...(this.llama ? {} : { refusal: null }),
          }
        : null;
    const message = this.llama
      ? { role: 'assistant', content: chosen.token }
      : { role: 'assistant', content: chosen.token, refusal: null, annotations: [] };
    // llama-server stops at a special token (`finish_reason: stop`), as at the end of text.
    const stopped = request.maxTokens !== 1 || (this.llama && chosen.token === '');
    const choice = (index: number) => ({ index, message, logprobs, finish_reason: stopped ? 'stop' : 'length' });
    const choices = Array.from({ length: kind === 'two-choices' ? 2 : request.n }, (_, index) => choice(index));
    const promptTokens = Math.ceil(conversation.length / 4) + 7 * request.messages.length;
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: request.n,
      total_tokens: promptTokens + request.n,
      prompt_tokens_details: { cached_tokens: 0, ...(this.llama ? {} : { audio_tokens: 0 }) },
      ...(this.llama ? {} : { completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 } }),
    };
    return {
      id: this.llama ? ex.requestId : `chatcmpl-${ex.requestId.slice(4)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices,
      usage,
      ...(this.llama ? {} : { service_tier: 'default' }),
      ...(this.systemFingerprint === null ? {} : { system_fingerprint: this.systemFingerprint }),
    };
  }

  private authFailure(req: IncomingMessage, azure: boolean): Invalid | undefined {
    if (this.apiKey === undefined) return undefined;
    const given = azure
      ? req.headers['api-key']
      : /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? '').trim())?.[1];
    if (this.llama && given !== this.apiKey) return new Invalid('Invalid API Key', null, 401);
    if (given === undefined || given === '') {
      const message = azure
        ? 'Access denied due to missing subscription key. Make sure to include the api-key header.'
        : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.";
      return new Invalid(message, null, 401);
    }
    if (given === this.apiKey) return undefined;
    const text = String(given);
    const masked = text.length > 8 ? `${text.slice(0, 3)}****${text.slice(-4)}` : '****';
    return new Invalid(`Incorrect API key provided: ${masked}.`, null, 401, 'invalid_api_key');
  }

  private statusFault(ex: Exchange, fault: OpenAiStatusFault): void {
    const headers: OutgoingHttpHeaders = {};
    if (fault.status === 429) {
      Object.assign(headers, this.rateHeaders('0', '0', fault.resetRequests ?? '1s', fault.resetTokens ?? '6m0s'));
    }
    if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
    Object.assign(headers, fault.headers);
    const body = fault.body ?? { error: { ...DEFAULT_ERRORS[fault.status], param: null } };
    if (typeof body === 'string') return this.send(ex, fault.status, body, headers, 'text/plain');
    this.sendJson(ex, fault.status, body, headers);
  }

  /** OpenAI's `x-ratelimit-*` headers; llama-server sends none. */
  private rateHeaders(requests: string, tokens: string, resetRequests: string, resetTokens: string) {
    if (this.llama) return {};
    return {
      'x-ratelimit-limit-requests': '10000',
      'x-ratelimit-limit-tokens': '2000000',
      'x-ratelimit-remaining-requests': requests,
      'x-ratelimit-remaining-tokens': tokens,
      'x-ratelimit-reset-requests': resetRequests,
      'x-ratelimit-reset-tokens': resetTokens,
    };
  }

  private error(ex: Exchange, invalid: Invalid): void {
    if (this.llama) {
      const type = { 401: 'authentication_error', 404: 'not_found_error' }[invalid.status] ?? 'invalid_request_error';
      return this.sendJson(ex, invalid.status, { error: { message: invalid.message, type, code: invalid.status } });
    }
    const type = invalid.status === 401 || invalid.status < 500 ? 'invalid_request_error' : 'server_error';
    this.sendJson(ex, invalid.status, {
      error: { message: invalid.message, type, param: invalid.param, code: invalid.code },
    });
  }

  private sendJson(ex: Exchange, status: number, value: unknown, headers?: OutgoingHttpHeaders): void {
    this.send(ex, status, JSON.stringify(value), headers);
  }

  private send(ex: Exchange, status: number, payload: string, headers?: OutgoingHttpHeaders, type = JSON_TYPE): void {
    const write = () => {
      const { res, entry } = ex;
      if (res.destroyed || res.writableEnded) return;
      const server = this.llama
        ? { server: 'llama.cpp' }
        : {
            'x-request-id': ex.requestId,
            'openai-processing-ms': String(this.latencyMs),
            'openai-version': '2020-10-01',
          };
      res.writeHead(status, {
        'content-type': this.llama && type === JSON_TYPE ? `${type}; charset=utf-8` : type,
        'content-length': Buffer.byteLength(payload),
        ...server,
        ...headers,
      });
      res.end(payload);
      if (entry) {
        entry.status = status;
        this.onRequest?.(entry);
      }
    };
    this.afterLatency(write);
  }
}

interface CheckedRequest {
  readonly model: string;
  readonly messages: ReadonlyArray<{ readonly role: string; readonly text: string }>;
  readonly logprobs: boolean;
  readonly topLogprobs: number;
  readonly n: number;
  readonly maxTokens: number | null;
}

function isBehaviour(kind: string): kind is OpenAiBehaviour {
  return (OPENAI_BEHAVIOURS as readonly string[]).includes(kind);
}

/**
 * The request's parameters, or the 400 the API answers for the first one it cannot accept. llama-server needs no
 * `model` and takes any `top_logprobs` count.
 */
function check(body: Record<string, unknown>, dialect: OpenAiDialect): CheckedRequest | Invalid {
  const { messages, logprobs, top_logprobs: top, n, temperature } = body;
  const llama = dialect === 'llama-server';
  const model = llama && body.model === undefined ? '' : body.model;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (typeof model !== 'string' || (model === '' && !llama)) {
    return new Invalid('you must provide a model parameter', 'model');
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    return new Invalid("Invalid 'messages': expected a non-empty array of messages.", 'messages');
  }
  const read: Array<{ role: string; text: string }> = [];
  for (const [index, message] of messages.entries()) {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (typeof role !== 'string' || !ROLES.has(role)) {
      return new Invalid(
        `Invalid value for 'messages[${index}].role': ${JSON.stringify(role)}.`,
        `messages[${index}].role`,
      );
    }
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((part) => String((part as { text?: unknown })?.text ?? '')).join('')
          : null;
    if (text === null) return new Invalid(`Invalid 'messages[${index}].content'.`, `messages[${index}].content`);
    read.push({ role, text });
  }
  if (logprobs !== undefined && logprobs !== null && typeof logprobs !== 'boolean') {
    return new Invalid("Invalid type for 'logprobs': expected a boolean.", 'logprobs');
  }
  if (top !== undefined && top !== null) {
    if (typeof top !== 'number' || !Number.isInteger(top) || top < 0 || (top > MAX_TOP_LOGPROBS && !llama)) {
      return new Invalid(
        `Invalid 'top_logprobs': integer above maximum value. Expected a value <= ${MAX_TOP_LOGPROBS}, but got ${JSON.stringify(top)} instead.`,
        'top_logprobs',
      );
    }
    if (logprobs !== true) {
      return new Invalid("Invalid value for 'top_logprobs': 'logprobs' must be set to true.", 'top_logprobs');
    }
  }
  if (n !== undefined && n !== null && (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 128)) {
    return new Invalid("Invalid 'n': expected an integer from 1 to 128.", 'n');
  }
  if (
    temperature !== undefined &&
    temperature !== null &&
    !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)
  ) {
    return new Invalid("Invalid 'temperature': expected a number from 0 to 2.", 'temperature');
  }
  if (
    maxTokens !== undefined &&
    maxTokens !== null &&
    !(typeof maxTokens === 'number' && Number.isInteger(maxTokens) && maxTokens >= 1)
  ) {
    return new Invalid("Invalid 'max_tokens': expected an integer of 1 or more.", 'max_tokens');
  }
  return {
    model,
    messages: read,
    logprobs: logprobs === true,
    topLogprobs: typeof top === 'number' ? top : 0,
    n: typeof n === 'number' ? n : 1,
    maxTokens: typeof maxTokens === 'number' ? maxTokens : null,
  };
}

/** Options of `startOpenAiSimulator()`: the simulator's options, where to listen, and faults to serve first. */
export interface StartOpenAiSimulatorOptions extends OpenAiSimulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Address to bind; default 127.0.0.1, so a connection pointed at it needs no key. */
  host?: string;
  faults?: readonly OpenAiFault[];
}

/** A simulator that is listening: its base URL (`…/v1`) is known until `stop()`. */
export type RunningOpenAiSimulator = OpenAiSimulator & { readonly url: string; readonly root: string };

/**
 * Starts the OpenAI-compatible simulator and resolves once it listens:
 * `const sim = await startOpenAiSimulator()`, point `engines.openai.url` at `sim.url`, `await sim.stop()`.
 */
export async function startOpenAiSimulator(options: StartOpenAiSimulatorOptions = {}): Promise<RunningOpenAiSimulator> {
  const { port = 0, host = '127.0.0.1', faults = [], ...simulatorOptions } = options;
  const simulator = new OpenAiSimulator(simulatorOptions);
  for (const fault of faults) simulator.fail(fault);
  await simulator.start(port, host);
  return simulator as RunningOpenAiSimulator;
}
