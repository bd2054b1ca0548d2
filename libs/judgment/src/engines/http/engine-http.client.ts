import { type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
import { EngineCallInterrupted, EngineFailed, EngineRateLimitDeferred } from '../../errors';
import { inHttpSpan } from '../../telemetry/judgment.tracing';
import { type Sleep, attemptDeadline, deadlineMs, sleepUnlessAborted } from './request-limits';
import { retryWait, type RetryHeaders } from './retry';

/** Headers of a response, as read from the HTTP client (names lower-case). */
export type ResponseHeaders = Readonly<Record<string, unknown>>;

/** What an Engine driver's HTTP client needs to know of its connection. */
export interface EngineHttpSettings {
  /** The connection name, in errors. */
  readonly connection: string;
  /** The URL every request is POSTed to. */
  readonly endpoint: string;
  /** Seconds per attempt: a wall-clock deadline covering connect, headers and body. */
  readonly timeout: number;
  /** Retries of the `retryable` statuses: up to 1 + retries requests. */
  readonly retries: number;
  /** Largest response body read, in bytes. */
  readonly maxResponseBytes: number;
  /** Statuses worth another attempt after the wait the response asks for. */
  readonly retryable: ReadonlySet<number>;
  /** The retry headers of a response, as `retryWait` reads them. */
  readonly retryHeaders: (headers: ResponseHeaders) => RetryHeaders;
  /** The header that carries the API key, and its value. */
  readonly authorization: (key: string) => readonly [name: string, value: string];
}

/** The last answer of a call: status, headers, the body as text, and how many requests were sent. */
export interface EngineHttpAnswer {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly text: string;
  readonly attempts: number;
}

/**
 * The one HTTP path of the Engine drivers: POSTs a body with a wall-clock deadline per attempt and a response size
 * cap, retries the retryable statuses after the wait they ask for, and never lets the key or the HTTP client's error
 * (which carries the request config) escape. Once the app shuts down, a retry wait is cancelled and no retry is sent
 * (EngineCallInterrupted); a first request still goes out, so a running job is let finish. When the call defers rate
 * limits (a queued job's round, `request.limits.defer`) a 429 is not waited for: it is handed to the queue
 * (EngineRateLimitDeferred), which pauses for the wait the response asks for.
 */
export class EngineHttpClient {
  /**
   * Keeps connections alive between calls and goes through the proxy the environment names: `HTTP_PROXY` for http
   * URLs (the request sent to it in absolute form, as axios did), `HTTPS_PROXY` (else `HTTP_PROXY`) through a CONNECT
   * tunnel for https ones, none for a host `NO_PROXY` names; read when the connection is built.
   */
  private readonly dispatcher: Dispatcher;
  /** The API key lives only here (an ES private field: not in JSON, util.inspect or any request options kept). */
  readonly #key: string | null;

  /** The URL every request is POSTed to (in a 404's message). */
  get endpoint(): string {
    return this.settings.endpoint;
  }

  constructor(
    private readonly settings: EngineHttpSettings,
    key: string | null,
    private readonly sleep: Sleep = sleepUnlessAborted,
    /** Aborts when the app shuts down. */
    private readonly shutdown?: AbortSignal,
  ) {
    this.#key = key;
    // The attempt's deadline bounds a request: undici's own idle timers (5 min) are off, and its connect timer (10 s)
    // is the deadline's length (connecting to a proxy keeps undici's 10 s).
    this.dispatcher = new EnvHttpProxyAgent({
      maxResponseSize: settings.maxResponseBytes,
      connectTimeout: deadlineMs(settings.timeout),
      headersTimeout: 0,
      bodyTimeout: 0,
      proxyTunnel: false,
    });
  }

  /**
   * POSTs `body`, retrying as the settings say; returns the last answer. Transport failures as EngineFailed. With
   * `deferRateLimit` a 429 throws EngineRateLimitDeferred at once instead of being retried here.
   */
  async send(body: string, { deferRateLimit = false }: { deferRateLimit?: boolean } = {}): Promise<EngineHttpAnswer> {
    const { connection, endpoint, timeout, retries, retryable, retryHeaders } = this.settings;
    for (let attempts = 1; ; attempts++) {
      const deadline = attemptDeadline(timeout);
      const response = await inHttpSpan('POST', endpoint, attempts - 1, () => this.post(body, deadline)).catch(
        (error: unknown) => {
          throw transportError(error, connection, endpoint, timeout, deadline, this.settings.maxResponseBytes);
        },
      );
      const { headers } = response;
      if (response.status === 429 && deferRateLimit) {
        throw new EngineRateLimitDeferred(
          `The Engine rate-limited the request (HTTP 429, connection "${connection}"); the queue pauses for its ` +
            'retry-after.',
          retryWait(retryHeaders(headers), attempts),
        );
      }
      if (!retryable.has(response.status) || attempts > retries) return { ...response, attempts };
      try {
        await this.sleep(retryWait(retryHeaders(headers), attempts), this.shutdown);
      } catch (error) {
        if (this.shutdown?.aborted) throw interrupted(connection, attempts + 1);
        throw error;
      }
    }
  }

  /** One request, body read whole as text: redirects are not followed, the deadline covers the body too. */
  private async post(body: string, deadline: AbortSignal): Promise<Omit<EngineHttpAnswer, 'attempts'>> {
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
    if (this.#key !== null) {
      const [name, value] = this.settings.authorization(this.#key);
      headers[name.toLowerCase()] = value;
    }
    const response = await request(this.settings.endpoint, {
      method: 'POST',
      headers,
      body,
      signal: deadline,
      dispatcher: this.dispatcher,
    });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  }
}

/** `retry-after-ms` and `retry-after` as sent (the Jev wire's retry headers). */
export function retryAfterHeaders(headers: ResponseHeaders): RetryHeaders {
  const text = (name: string) => {
    const value = headers[name];
    return value === undefined || value === null ? undefined : String(value);
  };
  return { 'retry-after-ms': text('retry-after-ms'), 'retry-after': text('retry-after') };
}

function interrupted(connection: string, attempt: number): EngineCallInterrupted {
  return new EngineCallInterrupted(
    `The app is shutting down: attempt ${attempt} on the Engine connection "${connection}" was not sent. Nothing ` +
      'was recorded; a queued Judgment is left for another worker, an inline one can be assessed again.',
  );
}

/**
 * A transport failure (deadline, size cap, refused or reset connection) as an EngineFailed. The HTTP client's error is
 * dropped, so nothing of the request (the API key included) can travel with it: the cause keeps method, path and code.
 */
function transportError(
  error: unknown,
  connection: string,
  endpoint: string,
  timeoutSeconds: number,
  deadline?: AbortSignal,
  maxResponseBytes?: number,
): EngineFailed {
  const { code: given, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  // undici's parser errors and the deadline's TimeoutError carry no string code: their name stands for it.
  const named = typeof name === 'string' && name !== 'Error' ? name : 'unknown';
  const code = typeof given === 'string' && name !== 'HTTPParserError' ? given : named;
  const url = new URL(endpoint);
  const target = `connection "${connection}", POST ${url.origin}${url.pathname}`;
  const cause = new Error(`POST ${url.pathname} failed: ${code}`);
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
    return new EngineFailed(
      `The Engine's response was larger than ${maxResponseBytes} bytes (${target}), so reading stopped. Raise ` +
        `engines.${connection}.maxResponseBytes if its answers are really that large.`,
      { cause },
    );
  }
  if (deadline?.aborted || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new EngineFailed(
      `The Engine did not answer within ${timeoutSeconds} s (${target}); a timed-out attempt is not retried. Raise ` +
        `engines.${connection}.timeout if the Engine needs longer.`,
      { cause },
    );
  }
  if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return new EngineFailed(
      `The Engine closed the connection before its answer was complete (${target}): it may have restarted, or ` +
        'something in between (a proxy, a load balancer) cut the request.',
      { cause },
    );
  }
  if (code === 'HTTPParserError') {
    return new EngineFailed(
      `The server answered with something other than HTTP/1.1 (${target}). Check that engines.${connection}.url ` +
        "points at the Engine's HTTP port.",
      { cause },
    );
  }
  return new EngineFailed(
    `The Engine could not be reached (${target}: ${code}). Check engines.${connection}.url and that the server is ` +
      'running.',
    { cause },
  );
}
