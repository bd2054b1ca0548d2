// Where the connections' limits are counted (issue 14): per process, with a startup warning, when no Redis is given;
// on Redis otherwise — and when that Redis goes away mid-window, each process counts alone in memory (nothing hangs
// or fails), and once it is back the shared counting resumes. The Redis here is this suite's own, on a free port.
import { execFileSync, spawn } from 'node:child_process';
import IORedis from 'ioredis';
import { EngineRateLimited } from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  type Harness,
  NoteCheck,
  decisionRequests,
  jevConnection,
  jevOptions,
  rejectionOf,
  startApp,
  startSimulator,
} from './support';
import { freePort } from '../support/service-port';

let PORT: number;
jest.setTimeout(60_000);

let sim: JevSimulator;
let url: string;
const harnesses: Harness[] = [];
const clients: IORedis[] = [];

beforeAll(async () => {
  PORT = await freePort();
  ({ sim, url } = await startSimulator());
});

afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
  for (const client of clients.splice(0)) client.disconnect();
  stopRedis();
});

afterAll(() => sim.stop());

function startRedis(): Promise<void> {
  const server = spawn(
    'redis-server',
    ['--port', String(PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
      detached: false,
    },
  );
  server.unref();
  return waitForRedis();
}

async function waitForRedis(): Promise<void> {
  for (let tries = 0; tries < 50; tries++) {
    try {
      execFileSync('redis-cli', ['-p', String(PORT), 'ping'], { stdio: 'ignore' });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`redis-server on port ${PORT} did not start.`);
}

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 100 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!condition()) throw new Error('The Redis client did not reconnect within 5 s.');
}

/** Stops only this suite's Redis (its own port), never the shared one. */
function stopRedis(): void {
  try {
    execFileSync('redis-cli', ['-p', String(PORT), 'shutdown', 'nosave'], { stdio: 'ignore' });
  } catch {
    // Not running.
  }
}

async function app(limits: object, redis: IORedis | undefined) {
  const harness = await startApp({
    typeOrm: null,
    options: jevOptions(url, {
      engines: { jev: jevConnection(url, { limits }) },
      limiter: { redis, prefix: 'rate-fault', maxWait: 0.2 },
      persistence: { enabled: false },
    }),
    extras: { dataSource: false },
  });
  harnesses.push(harness);
  return harness;
}

it('without Redis the limits are counted per process, and startup says so', async () => {
  const harness = await app({ requestsPerMinute: 60 }, undefined);
  expect(harness.captured.everything.join('\n')).toContain(
    'The Engine connection has limits but no Redis to share them: they are counted in this process only',
  );
});

it('when Redis goes away mid-window each process counts alone; when it is back the counting is shared again', async () => {
  await startRedis();
  const limits = { requestsPerMinute: 24, windowSeconds: 5 }; // 2 per 5-second window
  const client = () => {
    const redis = new IORedis({ port: PORT, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    clients.push(redis);
    return redis;
  };
  const first = await app(limits, client());
  const second = await app(limits, client());
  sim.clearLog();
  await first.judge.assess(new NoteCheck('one'));
  await second.judge.assess(new NoteCheck('two'));
  // Shared: the window is used up for both apps.
  expect(await rejectionOf(first.judge.assess(new NoteCheck('three')))).toBeInstanceOf(EngineRateLimited);

  stopRedis();
  // Redis is gone: each app counts in its own memory (rate-limiter-flexible's insurance limiter), from zero.
  const started = Date.now();
  await first.judge.assess(new NoteCheck('four'));
  await second.judge.assess(new NoteCheck('five'));
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(decisionRequests(sim)).toHaveLength(4);

  await startRedis();
  // Back: both clients reconnect, and a fresh window (the old counters went with the restart) is shared again. The
  // second app's memory has room for one more call in its window, so only shared counting refuses its call.
  for (const redis of clients) await waitUntil(() => redis.status === 'ready');
  await first.judge.assess(new NoteCheck('six'));
  await first.judge.assess(new NoteCheck('seven'));
  expect(await rejectionOf(second.judge.assess(new NoteCheck('eight')))).toBeInstanceOf(EngineRateLimited);
  expect(decisionRequests(sim)).toHaveLength(6);
});
