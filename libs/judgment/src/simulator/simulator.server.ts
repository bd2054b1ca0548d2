import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LoggedRequest, SimulatorLimits, SimulatorServerOptions } from './simulator.types';

/** One key's fixed window: when it started, requests and input tokens answered in it. */
export interface LimitWindow {
  readonly start: number;
  requests: number;
  tokens: number;
}

/**
 * The loopback HTTP server under every simulator mode: listening and closing (hanging sockets and latency timers
 * included), reading request bodies up to a size, the request log, queued faults, latency, and per-key rate limits in
 * fixed windows from a key's first request. A mode reads and answers requests in `dispatch`.
 */
export abstract class SimulatorServer<F> {
  protected readonly faults: F[] = [];
  protected readonly onRequest?: (entry: LoggedRequest) => void;
  protected readonly logRequests: boolean;
  private readonly log: LoggedRequest[] = [];
  private readonly maxLog: number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly limits?: Required<SimulatorLimits>;
  private readonly windows = new Map<string, LimitWindow>();
  private latency: number;
  private server?: Server;
  private refused = 0;
  /** The server's root while running, e.g. `http://127.0.0.1:8787`. */
  protected baseUrl?: string;

  constructor(options: SimulatorServerOptions) {
    this.latency = Math.max(0, options.latencyMs ?? 0);
    this.logRequests = options.logRequests ?? true;
    this.maxLog = Math.max(2, options.maxLog ?? 10_000);
    this.onRequest = options.onRequest;
    if (options.limits) {
      this.limits = {
        requests: options.limits.requests ?? Infinity,
        tokens: options.limits.tokens ?? Infinity,
        windowMs: options.limits.windowMs ?? 60_000,
      };
    }
  }

  /** The URL clients are pointed at while running. */
  abstract get url(): string | undefined;

  /** Answers one request whose body was read (`tooLarge` when it passed `bodyLimit()`, then `raw` is empty). */
  protected abstract dispatch(req: IncomingMessage, res: ServerResponse, raw: string, tooLarge: boolean): void;

  /** Largest request body read, in bytes. */
  protected bodyLimit(): number {
    return Infinity;
  }

  /** Requests received (when `logRequests`), oldest first. */
  get requests(): ReadonlyArray<LoggedRequest> {
    return this.log;
  }

  /** Requests refused with 429 by the per-key `limits` (injected faults not counted). */
  get rateLimited(): number {
    return this.refused;
  }

  /** Faults still queued. */
  get pendingFaults(): ReadonlyArray<F> {
    return this.faults;
  }

  /** Latency timers still waiting to send an answer (none after stop()). */
  get pendingTimers(): number {
    return this.timers.size;
  }

  get latencyMs(): number {
    return this.latency;
  }

  /** Listen (port 0 = any free port) and resolve with `url`. */
  start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) return Promise.reject(new Error(`${this.constructor.name} already started`));
    const server = createServer((req, res) => this.receive(req, res));
    // The server never closes a kept-alive connection itself: the client closes idle ones. A simulator often runs in
    // its client's process, in tests; when a long synchronous task held that process past the server's keep-alive
    // timeout, the client sent its next request on the pooled socket and the server's timer then closed it under the
    // request (ECONNRESET, seen in a loaded CI run).
    server.keepAliveTimeout = 0;
    this.server = server;
    return new Promise<string>((resolve, reject) => {
      const onError = (err: Error) => {
        this.server = undefined;
        reject(err);
      };
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        const { port: bound } = server.address() as AddressInfo;
        this.baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
        resolve(this.url as string);
      });
    });
  }

  /** Close the server, destroying every open socket (hanging requests included) and pending latency timers. */
  stop(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    this.server = undefined;
    this.baseUrl = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    return new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Queue `fault` for the next `times` answering requests, consumed in order. */
  fail(fault: F, times = 1): this {
    for (let i = 0; i < times; i++) this.faults.push(fault);
    return this;
  }

  clearFaults(): this {
    this.faults.length = 0;
    return this;
  }

  clearLog(): this {
    this.log.length = 0;
    return this;
  }

  setLatency(ms: number): this {
    this.latency = Math.max(0, ms);
    return this;
  }

  /** Adds a request to the log (when kept), dropping the older half when full. */
  protected logRequest(entry: LoggedRequest): void {
    if (!this.logRequests) return;
    if (this.log.length >= this.maxLog) this.log.splice(0, this.maxLog >> 1);
    this.log.push(entry);
  }

  /** Runs `write` after the latency (at once when `now`); stop() cancels it. */
  protected afterLatency(write: () => void, now = false): void {
    if (now || this.latency <= 0) return write();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      write();
    }, this.latency);
    this.timers.add(timer);
  }

  /**
   * The request's window under the limits (keyed by `key`, a new window once the last ended): undefined without
   * limits; `{ refusedForMs }` when the window is spent (counted as a refusal), else the window, its request counted.
   */
  protected admit(key: string): { window?: LimitWindow; refusedForMs?: number } {
    if (!this.limits) return {};
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || now >= window.start + this.limits.windowMs) {
      window = { start: now, requests: 0, tokens: 0 };
      this.windows.set(key, window);
    }
    if (window.requests >= this.limits.requests || window.tokens >= this.limits.tokens) {
      this.refused++;
      return { refusedForMs: Math.max(1, window.start + this.limits.windowMs - now) };
    }
    window.requests++;
    return { window };
  }

  /** The headers of a 429 from the limits: `retry-after-ms` and `retry-after`. */
  protected static retryHeaders(ms: number): Record<string, string> {
    return { 'retry-after-ms': String(ms), 'retry-after': String(Math.ceil(ms / 1000)) };
  }

  /** What is left of a window under the limits (Infinity for a limit not set). */
  protected remaining(window: LimitWindow | undefined): { requests: number; tokens: number } {
    if (!window || !this.limits) return { requests: Infinity, tokens: Infinity };
    return {
      requests: Math.max(0, this.limits.requests - window.requests),
      tokens: Math.max(0, this.limits.tokens - window.tokens),
    };
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const limit = this.bodyLimit();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('error', () => undefined);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => {
      const raw = size === 0 ? '' : (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
      this.dispatch(req, res, size > limit ? '' : raw, size > limit);
    });
  }
}
