// The Jev driver against hostile or broken servers (issue 17): a wall-clock deadline per attempt, a response size
// cap, shortened raw-body Provenance, retry waits the shutdown cancels. Real HTTP servers on the loopback address.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EngineCallInterrupted, EngineFailed } from '../../errors';
import { Likelihood, type Question } from '../../questions';
import type { EngineConnectionOptions } from '../../judgment.options';
import { JevEngine } from './jev.engine';

const KEY = 'sk-hostile-test-key';
const questions = () => new Map<string, Question>([['abusive', Likelihood.that('Is this abuse?')]]);
const ask = () => ({ questions: questions(), evidence: { note: 'Charged twice.' } });
const answer = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'jev-1.13.0', answers: { abusive: { type: 'noul', noul: 0.25 } }, ...extra });

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback server answering every request with `handler`; counts requests; close() cuts open sockets. */
async function serve(handler: Handler) {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function jev(url: string, options: EngineConnectionOptions = {}, shutdown?: AbortSignal): JevEngine {
  return JevEngine.connect('jev', { key: KEY, url, model: 'jev-1.13.0', ...options }, undefined, shutdown);
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}

describe('a deadline the Engine cannot dodge', () => {
  it('a server trickling its body a byte at a time is cut off at the timeout, counted from the request', async () => {
    const timers: NodeJS.Timeout[] = [];
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      timers.push(setInterval(() => res.write(' '), 200));
    });
    const started = Date.now();
    const error = await rejection(jev(server.url, { timeout: 1 }).answer(ask()));
    const elapsed = Date.now() - started;
    timers.forEach(clearInterval);
    await server.close();
    expect(error).toBeInstanceOf(EngineFailed);
    expect(error.message).toMatch(/did not answer within 1 s/);
    expect(elapsed).toBeLessThan(2500);
  });

  it('a body larger than maxResponseBytes fails the attempt unread, naming the option', async () => {
    const big = answer({ padding: 'x'.repeat(2 * 1024 * 1024) });
    const server = await serve((_req, res) => res.end(big));
    const error = await rejection(jev(server.url, { maxResponseBytes: 1024 * 1024 }).answer(ask()));
    await server.close();
    expect(error).toBeInstanceOf(EngineFailed);
    expect(error.message).toMatch(/larger than 1048576 bytes.*engines\.jev\.maxResponseBytes/);
  });

  it('the default cap is 4 MiB: a 5 MiB answer is refused, a 3 MiB one read', async () => {
    const server = await serve((req, res) =>
      res.end(answer({ padding: 'x'.repeat(req.url?.includes('big') ? 5 << 20 : 3 << 20) })),
    );
    await expect(jev(`${server.url}/big`).answer(ask())).rejects.toThrow(/larger than 4194304 bytes/);
    const read = await jev(server.url).answer(ask());
    await server.close();
    expect(read.answers).toEqual({ abusive: 0.25 });
  });

  it('keeps a large raw body in Provenance only shortened, with its length', async () => {
    const body = answer({ padding: 'y'.repeat(200_000) });
    const server = await serve((_req, res) => res.end(body));
    const { provenance } = await jev(server.url).answer(ask());
    await server.close();
    const response = provenance.details.response as { truncated: boolean; length: number; head: string };
    expect(response.truncated).toBe(true);
    expect(response.length).toBe(body.length);
    expect(response.head.length).toBeLessThanOrEqual(4096);
    expect(JSON.stringify(provenance.details).length).toBeLessThan(10_000);
  });

  it('refuses maxResponseBytes that is not a whole number of bytes', () => {
    expect(() => jev('http://127.0.0.1:1', { maxResponseBytes: Number.NaN })).toThrow(/maxResponseBytes/);
    expect(() => jev('http://127.0.0.1:1', { maxResponseBytes: 10 })).toThrow(/1024 or more/);
  });
});

describe('shutdown cancels retry waits', () => {
  it('a 429 asking for 25 s: the wait ends when the app shuts down, and nothing more is sent', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(429, { 'retry-after': '25', 'content-type': 'application/json' });
      res.end('{"detail":{"message":"slow down"}}');
    });
    const shutdown = new AbortController();
    const pending = rejection(jev(server.url, { retries: 3 }, shutdown.signal).answer(ask()));
    while (server.requests() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const aborted = Date.now();
    shutdown.abort();
    const error = await pending;
    const waited = Date.now() - aborted;
    await new Promise((resolve) => setTimeout(resolve, 200));
    await server.close();
    expect(error).toBeInstanceOf(EngineCallInterrupted);
    expect(error.message).toMatch(/shutting down.*attempt 2.*not sent/);
    expect(waited).toBeLessThan(500);
    expect(server.requests()).toBe(1);
  });

  it('after the shutdown began, a new call sends nothing', async () => {
    const server = await serve((_req, res) => res.end(answer()));
    const shutdown = new AbortController();
    shutdown.abort();
    await expect(jev(server.url, {}, shutdown.signal).answer(ask())).rejects.toBeInstanceOf(EngineCallInterrupted);
    await server.close();
    expect(server.requests()).toBe(0);
  });
});
