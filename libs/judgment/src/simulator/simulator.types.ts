/** Public types of the Jev-wire simulator. */

/** `jev`: hosted TypeSafe System One wire. `laya`: the `laya-serve` dialect of the same endpoint. */
export type SimulatorMode = 'jev' | 'laya';

/** One entry of `GET /v1/models`. */
export interface ModelInfo {
  name: string;
  description: string;
  /** ISO date-time string. */
  release_date: string;
}

/** What every simulator mode (jev, laya, openai) takes: latency, the request log, per-key limits. */
export interface SimulatorServerOptions {
  /** Delay before every answer (ms). 0 (default) answers synchronously, without a timer. */
  latencyMs?: number;
  /** Keep a request log in `requests` (default true). Turn off for benchmarks. */
  logRequests?: boolean;
  /** Log cap: when reached, the oldest half is dropped. Default 10,000. */
  maxLog?: number;
  /** Called once per finished request (after the response was written). */
  onRequest?: (entry: LoggedRequest) => void;
  /**
   * Per-key rate limits (key: the bearer token or Azure `api-key`, or none), counted in fixed windows that start with
   * a key's first request. Over a limit the request is answered 429 with `retry-after` (seconds) and `retry-after-ms`
   * until the window ends (the openai mode adds `x-ratelimit-reset-requests`). `rateLimited` counts the refusals.
   */
  limits?: SimulatorLimits;
}

/**
 * How one model's answers scatter around a case's known truth (`[[truth=<answer>]]` in the case's text): the model puts
 * q ~ Beta(a, b) on the true answer, except in a share `flip` of cases, where it puts q on a wrong answer (drawn
 * uniformly among the others); the rest of the mass is shared evenly by the other answers.
 */
export interface NoiseProfile {
  /** Beta(a, b)'s first shape (> 0): a larger a (against b) puts q nearer 1, a sharper model. */
  readonly a: number;
  /** Beta(a, b)'s second shape (> 0). */
  readonly b: number;
  /** The share of cases where the model favours a wrong answer, with the same q: confidently wrong. In [0, 1]. */
  readonly flip: number;
}

/**
 * Noise around a known truth (jev and openai modes): each model name a request may name gets a profile. A case whose
 * text has no `[[truth=…]]` marker, or a request naming a model without a profile, is answered as without noise.
 */
export interface SimulatorNoise {
  /** Profile per model name (the model a request names, its aliases resolved). Those names are accepted as models. */
  readonly profiles: Readonly<Record<string, NoiseProfile>>;
  /** Seed of every draw (a whole number, default 0): the same seed, model, case and question, the same answer. */
  readonly seed?: number;
  /**
   * Correlation in [0, 1) of the models' draws of one case (a Gaussian copula on q; default 0, independent): at 0.5, a
   * case one model is unsure of is more often one the other is unsure of too. Flips stay independent.
   */
  readonly correlation?: number;
}

export interface JevSimulatorOptions extends SimulatorServerOptions {
  /** Jev mode: answer cases that carry `[[truth=…]]` with a model-dependent noise around it (not in laya mode). */
  noise?: SimulatorNoise;
  /** Wire dialect. Default `jev`. */
  mode?: SimulatorMode;
  /**
   * When set, requests need `Authorization: Bearer <apiKey>`.
   * Jev: header missing → 403, wrong → 401. Laya: missing or wrong → 401.
   */
  apiKey?: string;
  /** Versioned model id reported in Jev mode (aliases resolve to it). Default `jev-1.13.0`. */
  model?: string;
  /** Catalogue served by `GET /v1/models`; its names are also accepted as pinned models. */
  models?: ModelInfo[];
  /** Laya: requests in flight above this answer 503 `server busy, try again later`. Default 16. */
  maxConcurrent?: number;
  /** Laya: choice questions with more labels answer 422 `options exceed head_max_len`. Default 20. */
  maxLabels?: number;
}

/** The simulator's per-key limits. */
export interface SimulatorLimits {
  /** Decision requests answered per window. */
  requests?: number;
  /** Input tokens answered per window: a request is refused once the window's answered tokens reach it. */
  tokens?: number;
  /** Window length in milliseconds (default 60,000). */
  windowMs?: number;
}

export interface LoggedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Parsed JSON body, the raw string when it is not JSON, `undefined` when empty. */
  body: unknown;
  /** `Date.now()` when the request body had been read. */
  at: number;
  /** Status sent; 0 while pending, or when the request hung / was disconnected. */
  status: number;
  /** `x-typesafe-request-id` sent (Jev mode). */
  requestId?: string;
  /** The injected fault that served this request, if any. */
  fault?: Fault;
}

/** 429 / 529: retryable, with retry headers. */
export interface RetryableFault {
  status: 429 | 529;
  /**
   * `retry-after-ms` header. `null` omits it. When both `retryAfterMs` and `retryAfter` are undefined,
   * the defaults `retry-after-ms: 1000` and `retry-after: 1` are sent.
   */
  retryAfterMs?: number | null;
  /** `retry-after` header: delta-seconds or an HTTP date. `null` omits it. */
  retryAfter?: string | number | null;
  /** Response body; a string is sent raw. Default: the Jev error object (`rate_limit_error` / `overloaded_error`). */
  body?: unknown;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** Any other error status (default bodies cover the three Jev `detail` shapes and a proxy HTML page). */
export interface ErrorFault {
  status: 400 | 401 | 403 | 404 | 408 | 413 | 422 | 500 | 502 | 503 | 504;
  /** Response body; a string is sent raw. */
  body?: unknown;
  /** Optional retry headers (Laya's 503 sends `retry-after: 1` by default). */
  retryAfterMs?: number | null;
  retryAfter?: string | number | null;
  headers?: Record<string, string>;
}

/** Never answer; the socket stays open until the client gives up or `stop()` destroys it. */
export interface HangFault {
  kind: 'hang';
}

/** Destroy the socket without answering (client sees ECONNRESET / socket hang up). */
export interface DisconnectFault {
  kind: 'disconnect';
}

/** Ways to break an otherwise valid 200 answer. */
export type MalformedVariant =
  /** The first half of the JSON text (content-type still application/json). */
  | 'non-json'
  /** No top-level `model`. */
  | 'no-model'
  /** No top-level `answers`. */
  | 'no-answers'
  /** The answer's `type` names another question type. */
  | 'wrong-type'
  /** A choice/score answer without its last label/level in `probabilities`; a noul answer without `noul`. */
  | 'missing-label'
  /** An extra answer for the never-asked id `__unasked__`. */
  | 'unasked-key'
  /** noul 1.5 / a probability of 1.5. */
  | 'out-of-range';

/** 200 with a broken body: either a literal `body`, or a `variant` applied to the real answer. */
export interface MalformedFault {
  kind: 'malformed';
  /** Sent verbatim (objects are JSON-serialised) with status 200. */
  body?: string | object;
  /** Used when `body` is absent. Default `non-json`. */
  variant?: MalformedVariant;
  /** Question id the variant targets (default: the first suitable question). */
  key?: string;
}

/** 200 without one question's answer. */
export interface DropAnswerFault {
  kind: 'drop-answer';
  /** Question id to omit (default: the first question). */
  key?: string;
}

export type StatusFault = RetryableFault | ErrorFault;
export type Fault = StatusFault | HangFault | DisconnectFault | MalformedFault | DropAnswerFault;
