// An Engine account's rate limit as most Engine APIs enforce it: a token bucket of `burst` requests refilled
// continuously at `perMinute`, in front of the Jev simulator over real HTTP. A request that finds a token is forwarded
// (the simulator answers it); one that finds none is answered 429 with Jev's body and retry headers (the time until
// the next token). Used by test/queue/account-limit.e2e-spec.ts and bench/account-limit.bench.ts.
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the proxy saw: when (ms since the epoch) and what it answered. */
export interface ProxySeen {
  readonly at: number;
  readonly status: number;
}

export class TokenBucketProxy {
  readonly seen: ProxySeen[] = [];
  private tokens: number;
  private refilledAt = Date.now();
  private server: Server | null = null;
  private readonly perMs: number;

  constructor(
    private readonly upstream: string,
    readonly perMinute: number,
    readonly burst: number,
  ) {
    this.tokens = burst;
    this.perMs = perMinute / 60_000;
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('The token-bucket proxy is not started.');
    return `http://127.0.0.1:${address.port}`;
  }

  /** Forwarded requests (a token was free). */
  get forwarded(): ProxySeen[] {
    return this.seen.filter((seen) => seen.status !== 429);
  }

  /** Requests answered 429 at or after `from` (ms since the epoch). */
  refusedSince(from: number): number {
    return this.seen.filter((seen) => seen.status === 429 && seen.at >= from).length;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private take(): number {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.refilledAt) * this.perMs);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - this.tokens) / this.perMs);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const at = Date.now();
    const isDecision = req.method === 'POST';
    const waitMs = isDecision ? this.take() : 0;
    if (waitMs > 0) {
      this.seen.push({ at, status: 429 });
      req.resume();
      const body = JSON.stringify({ detail: { error_type: 'rate_limit_error', message: 'Rate limit exceeded.' } });
      res.writeHead(429, {
        'content-type': 'application/json',
        'retry-after-ms': String(waitMs),
        'retry-after': String(Math.ceil(waitMs / 1000)),
      });
      res.end(body);
      return;
    }
    const target = new URL(req.url ?? '/', this.upstream);
    const forward = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer: IncomingMessage) => {
        if (isDecision) this.seen.push({ at, status: answer.statusCode ?? 0 });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      if (isDecision) this.seen.push({ at, status: 502 });
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  }
}
