// The hardening every HTTP driver owes (issue 17), as one set of tests each driver's spec runs: a wall-clock deadline
// per attempt, a response size cap, and retry waits the shutdown cancels. Real HTTP servers on the loopback address.
import { EngineCallInterrupted, EngineFailed } from '../../errors';
import type { EngineConnectionOptions } from '../../judgment.options';
import type { Engine, EngineRequest } from '../engine.interface';
import { rejection, serve } from './loopback-server.spec-helpers';

/** How the shared tests drive one driver. */
export interface DriverUnderTest {
  /** The connection name the driver is connected as. */
  readonly connection: string;
  /** The driver on a connection to `url` with `options`, and the shutdown signal. */
  connect(url: string, options?: EngineConnectionOptions, shutdown?: AbortSignal): Engine;
  /** A request the driver answers with one HTTP request. */
  request(): EngineRequest;
  /** A valid 2xx body carrying `padding` extra characters. */
  answer(padding: number): string;
  /** A body of a 429 answer in the driver's wire. */
  readonly rateLimited: string;
}

/** Runs the shared hardening tests against `driver`. */
export function describeHttpHardening(driver: DriverUnderTest): void {
  const { connect, request, answer } = driver;

  describe('a deadline the Engine cannot dodge', () => {
    it('a server trickling its body a byte at a time is cut off at the timeout, counted from the request', async () => {
      const timers: NodeJS.Timeout[] = [];
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        timers.push(setInterval(() => res.write(' '), 200));
      });
      const started = Date.now();
      const error = await rejection(connect(server.url, { timeout: 1 }).answer(request()));
      const elapsed = Date.now() - started;
      timers.forEach(clearInterval);
      await server.close();
      expect(error).toBeInstanceOf(EngineFailed);
      expect(error.message).toMatch(/did not answer within 1 s/);
      expect(elapsed).toBeLessThan(2500);
    });

    it('a body larger than maxResponseBytes fails the attempt unread, naming the option', async () => {
      const big = answer(2 << 20);
      const server = await serve((_req, res) => res.end(big));
      const error = await rejection(connect(server.url, { maxResponseBytes: 1 << 20 }).answer(request()));
      await server.close();
      expect(error).toBeInstanceOf(EngineFailed);
      expect(error.message).toContain('larger than 1048576 bytes');
      expect(error.message).toContain(`engines.${driver.connection}.maxResponseBytes`);
    });

    it('the default cap is 4 MiB: a 5 MiB answer is refused, a 3 MiB one read into a small Provenance', async () => {
      const server = await serve((req, res) => res.end(answer(req.url?.includes('big') ? 5 << 20 : 3 << 20)));
      await expect(connect(`${server.url}/big`).answer(request())).rejects.toThrow(/larger than 4194304 bytes/);
      const read = await connect(server.url).answer(request());
      await server.close();
      expect(Object.keys(read.answers)).toEqual([...request().questions.keys()]);
      expect(JSON.stringify(read.provenance).length).toBeLessThan(10_000);
    });

    it('refuses maxResponseBytes that is not a whole number of bytes of 1024 or more', () => {
      expect(() => connect('http://127.0.0.1:1', { maxResponseBytes: Number.NaN })).toThrow(/maxResponseBytes/);
      expect(() => connect('http://127.0.0.1:1', { maxResponseBytes: 10 })).toThrow(/1024 or more/);
    });
  });

  describe('shutdown cancels retry waits', () => {
    const rateLimited = () =>
      serve((_req, res) => {
        res.writeHead(429, { 'retry-after': '25', 'content-type': 'application/json' });
        res.end(driver.rateLimited);
      });

    it('a 429 asking for 25 s: the wait ends when the app shuts down, and nothing more is sent', async () => {
      const server = await rateLimited();
      const shutdown = new AbortController();
      const pending = rejection(connect(server.url, { retries: 3 }, shutdown.signal).answer(request()));
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

    it('after the shutdown began, a call still sends its first request (a running job finishes) but never retries', async () => {
      const server = await rateLimited();
      const shutdown = new AbortController();
      shutdown.abort();
      await expect(connect(server.url, { retries: 3 }, shutdown.signal).answer(request())).rejects.toBeInstanceOf(
        EngineCallInterrupted,
      );
      await server.close();
      expect(server.requests()).toBe(1);
    });
  });
}
