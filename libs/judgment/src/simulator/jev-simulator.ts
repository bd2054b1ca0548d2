/**
 * Loopback HTTP server speaking the Jev wire (TypeSafe System One API, `POST /v1/systemone`) or the `laya-serve`
 * dialect of it, with deterministic text-derived answers, latency, fault injection and a request log.
 * Built on `node:http` only, to stay fast enough for benchmarks.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { checkNoise } from './answer-noise';
import { answerAll, type NormalQuestion } from './simulated-answers';
import type {
  Fault,
  JevSimulatorOptions,
  LoggedRequest,
  MalformedVariant,
  ModelInfo,
  SimulatorMode,
  SimulatorNoise,
  StatusFault,
} from './simulator.types';
import { isPlainObject, validateJev, validateLaya, type ValidationFailure } from './request.validation';
import { SimulatorServer } from './simulator.server';

export const DEFAULT_JEV_MODEL = 'jev-1.13.0';
export const JEV_ALIASES: readonly string[] = ['jev-latest', 'jev-preview'];
export const LAYA_MODEL = 'laya-rl-agent';
export const DEFAULT_RELEASE_DATE = '2026-09-17T00:00:00Z';

/** Laya checkpoints: name → HF repo and head token budget. */
export const LAYA_CHECKPOINTS = {
  english: { repo: 'convaiinnovations/laya', headMaxLen: 192 },
  multilingual: { repo: 'convaiinnovations/laya-multilingual', headMaxLen: 256 },
  'typed-decisions': { repo: 'convaiinnovations/laya-typed-decisions', headMaxLen: 256 },
} as const;
export type LayaCheckpoint = keyof typeof LAYA_CHECKPOINTS;

const LAYA_ALIASES: Record<string, LayaCheckpoint> = {
  english: 'english',
  en: 'english',
  laya: 'english',
  default: 'english',
  'laya-english': 'english',
  multilingual: 'multilingual',
  multi: 'multilingual',
  ml: 'multilingual',
  'laya-multilingual': 'multilingual',
  'convaiinnovations/laya-multilingual': 'multilingual',
  'typed-decisions': 'typed-decisions',
  typed: 'typed-decisions',
  typed_decisions: 'typed-decisions',
  decisions: 'typed-decisions',
  'laya-typed-decisions': 'typed-decisions',
  'convaiinnovations/laya-typed-decisions': 'typed-decisions',
};

const MAX_BODY_BYTES = { jev: 10 * 1024 * 1024, laya: 2 * 1024 * 1024 };
const JSON_TYPE = 'application/json';

const AUTH_INVALID = 'Cannot authenticate with the server. Please check your API key and try again.';
const AUTH_MISSING = 'Must supply an API key! Check your request and try again.';
const LAYA_AUTH = 'invalid or missing bearer token';
const LAYA_BUSY = 'server busy, try again later';

const proxyPage = (title: string) =>
  `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n</body>\r\n</html>\r\n`;

const JEV_FAULT_BODIES: Record<number, unknown> = {
  400: { detail: { error_type: 'api_usage_error', message: 'Bad request.' } },
  401: { detail: { error_type: 'authentication_error', message: AUTH_INVALID } },
  403: { detail: { error_type: 'authentication_error', message: AUTH_MISSING } },
  404: { detail: 'Not Found' },
  408: { detail: { error_type: 'timeout', message: 'Request timed out.' } },
  413: { detail: 'Request Entity Too Large' },
  422: { detail: [{ type: 'missing', loc: ['body', 'questions'], msg: 'Field required', input: {} }] },
  429: { detail: { error_type: 'rate_limit_error', message: 'Rate limit exceeded.' } },
  500: { detail: 'Internal Server Error' },
  502: proxyPage('502 Bad Gateway'),
  503: { detail: 'Service Unavailable' },
  504: proxyPage('504 Gateway Time-out'),
  529: { detail: { error_type: 'overloaded_error', message: 'Overloaded.' } },
};

const LAYA_FAULT_DETAILS: Record<number, string> = {
  400: 'request body must be valid JSON',
  401: LAYA_AUTH,
  403: 'forbidden',
  404: 'Not Found',
  408: 'request timeout',
  413: 'request body too large',
  422: 'invalid request',
  429: 'rate limited',
  500: 'inference failed',
  502: 'bad gateway',
  503: LAYA_BUSY,
  504: 'gateway timeout',
  529: 'overloaded',
};

type Answers = Record<string, Record<string, unknown>>;

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  entry?: LoggedRequest;
  requestId?: string;
}

function rawContentType(text: string): string {
  const t = text.trimStart();
  if (t.startsWith('<')) return 'text/html';
  try {
    JSON.parse(text);
    return JSON_TYPE;
  } catch {
    return 'text/plain';
  }
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

export class JevSimulator extends SimulatorServer<Fault> {
  readonly mode: SimulatorMode;
  readonly apiKey?: string;
  readonly maxConcurrent: number;
  readonly maxLabels: number;
  readonly models: ReadonlyArray<ModelInfo>;
  /** Noise around a known truth per model, or undefined (answers from the hash and the markers only). */
  readonly noise?: SimulatorNoise;

  private currentModel: string;
  private readonly knownModels: Set<string>;
  private readonly idPrefix = randomBytes(4).toString('hex');
  private inFlight = 0;
  private counter = 0;
  private handled = 0;

  constructor(options: JevSimulatorOptions = {}) {
    super(options);
    this.mode = options.mode ?? 'jev';
    this.currentModel = options.model ?? DEFAULT_JEV_MODEL;
    this.apiKey = options.apiKey;
    this.maxConcurrent = options.maxConcurrent ?? 16;
    this.maxLabels = options.maxLabels ?? 20;
    this.models = options.models ?? [
      {
        name: this.model,
        description: 'Jev System One, pinned release (simulated)',
        release_date: DEFAULT_RELEASE_DATE,
      },
      { name: 'jev-latest', description: `Stable alias, currently ${this.model}`, release_date: DEFAULT_RELEASE_DATE },
      {
        name: 'jev-preview',
        description: `Preview alias, currently ${this.model}`,
        release_date: DEFAULT_RELEASE_DATE,
      },
    ];
    this.knownModels = new Set([this.model, ...this.models.map((m) => m.name)]);
    if (options.noise) {
      if (this.mode === 'laya') throw new RangeError('noise applies to the jev mode only, not to laya.');
      checkNoise(options.noise);
      this.noise = options.noise;
      for (const model of Object.keys(options.noise.profiles)) this.knownModels.add(model);
    }
  }

  /** Number of requests handled since start (counted even when the log is off). */
  get requestCount(): number {
    return this.handled;
  }

  /** Base URL while running, e.g. `http://127.0.0.1:8787`. */
  get url(): string | undefined {
    return this.baseUrl;
  }

  /** The versioned model reported (and that `jev-latest`/`jev-preview` resolve to). */
  get model(): string {
    return this.currentModel;
  }

  /**
   * Moves the aliases to another versioned model (as a provider does when it ships a release): later answers report
   * it. The pinned models named before stay accepted.
   */
  setModel(model: string): this {
    this.currentModel = model;
    this.knownModels.add(model);
    return this;
  }

  // -------------------------------------------------------------------------------------------------------------

  protected override bodyLimit(): number {
    return MAX_BODY_BYTES[this.mode];
  }

  protected dispatch(req: IncomingMessage, res: ServerResponse, raw: string, tooLarge: boolean): void {
    this.handled++;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q >= 0 ? url.slice(0, q) : url;
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const method = req.method ?? 'GET';

    let body: unknown;
    let parsed = false;
    if (raw !== '' && !tooLarge) {
      try {
        body = JSON.parse(raw);
        parsed = true;
      } catch {
        body = raw;
      }
    }
    const ex: Exchange = { req, res };
    if (this.mode === 'jev') ex.requestId = `req_${this.idPrefix}${hex8(++this.counter)}`;
    if (this.logRequests || this.onRequest) {
      const entry: LoggedRequest = { method, path, headers: req.headers, body, at: Date.now(), status: 0 };
      if (ex.requestId) entry.requestId = ex.requestId;
      ex.entry = entry;
      this.logRequest(entry);
    }

    if (path === '/health') {
      if (method !== 'GET' && method !== 'HEAD') return this.methodNotAllowed(ex);
      return this.sendJson(ex, 200, { status: 'ok' }, undefined, true);
    }
    if (path === '/v1/systemone') {
      if (method !== 'POST') return this.methodNotAllowed(ex);
      return this.decide(ex, raw, body, parsed, tooLarge);
    }
    if (path === '/v1/models' && this.mode === 'jev') {
      if (method !== 'GET') return this.methodNotAllowed(ex);
      const auth = this.authFailure(req);
      if (auth) return this.sendJson(ex, auth.status, auth.body);
      return this.sendJson(ex, 200, { models: this.models });
    }
    this.sendJson(ex, 404, { detail: 'Not Found' });
  }

  private methodNotAllowed(ex: Exchange): void {
    this.sendJson(ex, 405, { detail: 'Method Not Allowed' });
  }

  private authFailure(req: IncomingMessage): ValidationFailure | undefined {
    if (this.apiKey === undefined) return undefined;
    const header = req.headers.authorization;
    if (this.mode === 'laya') {
      return header === `Bearer ${this.apiKey}` ? undefined : { status: 401, body: { detail: LAYA_AUTH } };
    }
    if (header === undefined) {
      return { status: 403, body: { detail: { error_type: 'authentication_error', message: AUTH_MISSING } } };
    }
    const match = /^bearer\s+(.*)$/i.exec(header.trim());
    if (match && match[1] === this.apiKey) return undefined;
    return { status: 401, body: { detail: { error_type: 'authentication_error', message: AUTH_INVALID } } };
  }

  private decide(ex: Exchange, raw: string, body: unknown, parsed: boolean, tooLarge: boolean): void {
    const laya = this.mode === 'laya';
    const auth = this.authFailure(ex.req);
    if (auth) return this.sendJson(ex, auth.status, auth.body);

    if (laya) {
      if (this.inFlight >= this.maxConcurrent) {
        return this.sendJson(ex, 503, { detail: LAYA_BUSY }, { 'retry-after': '1' }, true);
      }
      this.inFlight++;
      ex.res.once('close', () => this.inFlight--);
    }

    const { window, refusedForMs } = this.admit(ex.req.headers.authorization ?? '');
    if (refusedForMs !== undefined) {
      const body = laya ? { detail: LAYA_FAULT_DETAILS[429] } : JEV_FAULT_BODIES[429];
      return this.sendJson(ex, 429, body, SimulatorServer.retryHeaders(refusedForMs), true);
    }

    const fault = this.faults.shift();
    if (fault) {
      if (ex.entry) ex.entry.fault = fault;
      if ('status' in fault) return this.sendFault(ex, fault);
      if (fault.kind === 'hang') return;
      if (fault.kind === 'disconnect') {
        ex.req.socket.destroy();
        return;
      }
      if (fault.kind === 'malformed' && fault.body !== undefined) {
        const text = typeof fault.body === 'string' ? fault.body : JSON.stringify(fault.body);
        return this.send(ex, 200, text, JSON_TYPE);
      }
    }

    if (tooLarge) {
      return this.sendJson(ex, 413, { detail: laya ? 'request body too large' : 'Request Entity Too Large' });
    }
    if (!parsed) {
      if (laya) return this.sendJson(ex, 400, { detail: 'request body must be valid JSON' });
      const detail =
        raw === ''
          ? [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]
          : [
              {
                type: 'json_invalid',
                loc: ['body', 0],
                msg: 'JSON decode error',
                input: {},
                ctx: { error: 'Invalid JSON' },
              },
            ];
      return this.sendJson(ex, 422, { detail });
    }

    let response: Record<string, unknown>;
    let questions: NormalQuestion[];
    const started = laya ? performance.now() : 0;
    if (laya) {
      const routing = this.route(isPlainObject(body) ? body.model : undefined);
      const result = validateLaya(body, this.maxLabels, LAYA_CHECKPOINTS[routing.model].headMaxLen);
      if (!result.ok) return this.sendJson(ex, result.failure.status, result.failure.body);
      questions = result.questions;
      const request = body as Record<string, unknown>;
      const { answers, stateText } = answerAll(request.state, questions, 10_000, true);
      const stateTokens = Math.ceil(stateText.length / 4);
      response = {
        model: LAYA_MODEL,
        answers,
        usage: {
          input_tokens:
            questions.length === 0 ? 0 : stateTokens + Math.ceil(JSON.stringify(request.questions).length / 4),
          output_tokens: 0,
          state_tokens: stateTokens,
          state_tokens_dropped: 0,
          truncated: false,
          truncated_questions: [],
        },
        routing,
      };
    } else {
      const result = validateJev(body);
      if (!result.ok) return this.sendJson(ex, result.failure.status, result.failure.body);
      questions = result.questions;
      const request = body as { model: string; state: unknown; questions: unknown };
      const model = JEV_ALIASES.includes(request.model)
        ? this.model
        : this.knownModels.has(request.model)
          ? request.model
          : undefined;
      if (model === undefined) {
        return this.sendJson(ex, 400, {
          detail: { error_type: 'api_usage_error', message: `Unknown model: ${request.model}` },
        });
      }
      const profile = this.noise && Object.hasOwn(this.noise.profiles, model) ? this.noise.profiles[model] : undefined;
      const noisy = profile && { noise: this.noise!, profile, model };
      const { answers, stateText } = answerAll(request.state, questions, 100, false, noisy);
      let outputTokens = 0;
      for (const q of questions) {
        outputTokens +=
          q.type === 'noul' ? 9 : q.type === 'choice' ? 11 + 2 * q.labels.length : 10 + 3 * q.labels.length;
      }
      response = {
        model,
        answers,
        usage: {
          input_tokens: Math.ceil((stateText.length + JSON.stringify(request.questions).length) / 4),
          output_tokens: outputTokens,
        },
      };
    }

    const answers = response.answers as Answers;
    if (fault?.kind === 'drop-answer') {
      delete answers[fault.key ?? questions[0]?.id ?? ''];
    } else if (fault?.kind === 'malformed') {
      const variant = fault.variant ?? 'non-json';
      if (variant === 'non-json') {
        const text = JSON.stringify(response);
        return this.send(ex, 200, text.slice(0, Math.floor(text.length / 2)), JSON_TYPE);
      }
      breakResponse(response, answers, questions, variant, fault.key);
    }
    if (window) window.tokens += Number((response.usage as { input_tokens?: number }).input_tokens ?? 0);
    let headers: OutgoingHttpHeaders | undefined;
    if (laya) {
      const ms = (performance.now() - started + this.latencyMs).toFixed(2);
      headers = { 'server-timing': `inference;dur=${ms}`, 'x-inference-time-ms': ms };
    }
    this.sendJson(ex, 200, response, headers);
  }

  private route(model: unknown): {
    model: LayaCheckpoint;
    repo: string;
    reason: string;
    detection: Record<string, unknown> | null;
    workflow: null;
  } {
    const wanted = typeof model === 'string' ? LAYA_ALIASES[model.trim().toLowerCase()] : undefined;
    if (wanted) {
      const reason = `pinned by request model '${String(model)}'`;
      return { model: wanted, repo: LAYA_CHECKPOINTS[wanted].repo, reason, detection: null, workflow: null };
    }
    return {
      model: 'english',
      repo: LAYA_CHECKPOINTS.english.repo,
      reason: 'English Latin text',
      detection: { script: 'latin', language: 'en', is_english: true },
      workflow: null,
    };
  }

  private sendFault(ex: Exchange, fault: StatusFault): void {
    const status = fault.status;
    const laya = this.mode === 'laya';
    const headers: OutgoingHttpHeaders = {};
    let ms = fault.retryAfterMs;
    let after = fault.retryAfter;
    if (ms === undefined && after === undefined) {
      if (status === 429 || status === 529) {
        ms = laya ? null : 1000;
        after = '1';
      } else if (status === 503 && laya) {
        after = '1';
      }
    }
    if (ms !== undefined && ms !== null) headers['retry-after-ms'] = String(ms);
    if (after !== undefined && after !== null) headers['retry-after'] = String(after);
    if (fault.headers) Object.assign(headers, fault.headers);
    const body =
      fault.body !== undefined
        ? fault.body
        : laya
          ? { detail: LAYA_FAULT_DETAILS[status] ?? 'error' }
          : (JEV_FAULT_BODIES[status] ?? { detail: 'Error' });
    if (typeof body === 'string') return this.send(ex, status, body, rawContentType(body), headers);
    this.sendJson(ex, status, body, headers);
  }

  private sendJson(ex: Exchange, status: number, value: unknown, headers?: OutgoingHttpHeaders, now = false): void {
    this.send(ex, status, JSON.stringify(value), JSON_TYPE, headers, now);
  }

  private send(
    ex: Exchange,
    status: number,
    payload: string,
    contentType: string,
    headers?: OutgoingHttpHeaders,
    now = false,
  ): void {
    this.afterLatency(() => this.write(ex, status, payload, contentType, headers), now);
  }

  private write(ex: Exchange, status: number, payload: string, contentType: string, headers?: OutgoingHttpHeaders) {
    const { res, entry } = ex;
    if (res.destroyed || res.writableEnded) return;
    const out: OutgoingHttpHeaders = { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) };
    if (ex.requestId) out['x-typesafe-request-id'] = ex.requestId;
    if (headers) Object.assign(out, headers);
    res.writeHead(status, out);
    res.end(ex.req.method === 'HEAD' ? undefined : payload);
    if (entry) {
      entry.status = status;
      this.onRequest?.(entry);
    }
  }
}

const NEXT_TYPE: Record<string, string> = { noul: 'choice', choice: 'score', score: 'noul' };

/** Apply a malformed variant (other than `non-json`) to a valid response, in place. */
function breakResponse(
  response: Record<string, unknown>,
  answers: Answers,
  questions: NormalQuestion[],
  variant: Exclude<MalformedVariant, 'non-json'>,
  key: string | undefined,
): void {
  const pick = (prefer?: (q: NormalQuestion) => boolean) =>
    questions.find((q) => (key !== undefined ? q.id === key : (prefer?.(q) ?? true))) ??
    (key === undefined ? questions[0] : undefined);
  switch (variant) {
    case 'no-model':
      delete response.model;
      return;
    case 'no-answers':
      delete response.answers;
      return;
    case 'unasked-key':
      answers.__unasked__ = { type: 'noul', noul: 0.5 };
      return;
    case 'wrong-type': {
      const q = pick();
      if (q && answers[q.id]) answers[q.id].type = NEXT_TYPE[q.type];
      return;
    }
    case 'missing-label': {
      const q = pick((x) => x.type !== 'noul');
      const answer = q && answers[q.id];
      if (!q || !answer) return;
      if (q.type === 'noul') delete answer.noul;
      else delete (answer.probabilities as Record<string, number>)[q.labels[q.labels.length - 1]];
      return;
    }
    case 'out-of-range': {
      const q = pick();
      const answer = q && answers[q.id];
      if (!q || !answer) return;
      if (q.type === 'noul') answer.noul = 1.5;
      else (answer.probabilities as Record<string, number>)[q.labels[0]] = 1.5;
      return;
    }
  }
}
