// Rate limits shared across processes (issue 14), on real Redis and PostgreSQL with the Jev simulator over HTTP:
// two worker processes obey one global request limit, an Engine's 429 pauses the whole queue for its retry-after
// without failing a job, inline calls wait for a slot then fail fast, and calibration leaves live calls their share.
import type { ChildProcess } from 'node:child_process';
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { AssessmentRecord, EngineRateLimited, Judge, type JudgmentModuleOptions, Unassessed } from 'nestjs-judgment';
import { Calibration, LabelledCase } from 'nestjs-judgment/calibration';
import {
  API_KEY,
  Customer,
  MODEL,
  Moderation,
  RefundCheck,
  RefundOutcome,
  freshDatabase,
  inspectQueue,
  openDatabase,
  startQueueApp,
  waitForProgress,
} from './queue.fixtures';
import { REDIS, clearPrefix } from '../support/redis';
import { EngineManager } from '../../libs/judgment/src/engines/engine.manager';
import { RESOLVED_JUDGMENT_OPTIONS } from '../../libs/judgment/src/judgment.constants';
import { statusReport } from '../../libs/judgment/src/cli/status.command';
import { spawnWorkerProcess, stopWorkerProcess } from './worker-process';

const DATABASE = 'judgment_rate_e2e';
jest.setTimeout(120_000);

let sim: JevSimulator;
let db: DataSource;
let redis: IORedis;
const apps: INestApplicationContext[] = [];
const queues: Queue[] = [];
const workers: ChildProcess[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
  redis = new IORedis(REDIS);
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await stopWorkerProcess(worker);
  for (const app of apps.splice(0)) await app.close();
  for (const queue of queues.splice(0)) await queue.close();
  for (const prefix of prefixes.splice(0)) await clearPrefix(prefix);
  await db.getRepository(AssessmentRecord).clear();
  await sim?.stop();
});

afterAll(async () => {
  await redis?.quit();
  await db?.destroy();
});

function newPrefix(): string {
  const prefix = `jq-rate-${Math.random().toString(36).slice(2, 8)}`;
  prefixes.push(prefix);
  return prefix;
}

function connection(limits?: object): JudgmentModuleOptions['engines'] {
  return { jev: { driver: 'jev', key: API_KEY, url: sim.url!, model: MODEL, retries: 0, limits } };
}

/** Spawns a worker process with `limits` on the connection; resolves once it prints `ready`. */
async function spawnWorker(prefix: string, name: string, limits: object | undefined): Promise<ChildProcess> {
  return spawnWorkerProcess(
    'rate-limit-worker.fixture.ts',
    {
      JQ_DATABASE: DATABASE,
      JQ_PREFIX: prefix,
      JQ_SIMULATOR_URL: sim.url!,
      JQ_CONCURRENCY: '8',
      JQ_NAME: name,
      JQ_LIMITS: limits ? JSON.stringify(limits) : '',
    },
    workers,
  );
}

/** Times (ms) at which the simulator received decision requests, and which status it answered. */
function decisionRequests() {
  return sim.requests.filter((request) => request.path === '/v1/systemone');
}

/** Dispatches `count` Moderation Judgments from an app that runs no workers; returns the assess queue to inspect. */
async function dispatchFromProducer(
  prefix: string,
  count: number,
  limits: object | undefined,
  priority?: number,
): Promise<Queue> {
  const producer = await startQueueApp({
    database: DATABASE,
    prefix,
    simulatorUrl: sim.url!,
    queue: { runWorkers: false },
    options: { engines: connection(limits), limiter: { prefix: `${prefix}:limits` } },
  });
  apps.push(producer);
  const assess = inspectQueue('judgment-assess', prefix);
  queues.push(assess);
  const judge = producer.get(Judge);
  await Promise.all(
    Array.from({ length: count }, (_, n) => judge.dispatch(new Moderation(`Post ${n} [[toxic=0.2]]`), { priority })),
  );
  return assess;
}

it('two worker processes together send no more than the connection allows per window (the limit is global)', async () => {
  sim = new JevSimulator({ apiKey: API_KEY });
  await sim.start();
  const prefix = newPrefix();
  // 10 requests per 2-second window. Each process alone would allow 10 per window, so two would finish twice as fast.
  const limits = { requestsPerMinute: 300, windowSeconds: 2 };
  const assess = await dispatchFromProducer(prefix, 40, limits);
  // `judgment status` shows the limits counted on Redis, the backlog and how long it takes to drain at the limit.
  const producer = apps[0];
  const status = await statusReport(producer.get(EngineManager), producer.get(RESOLVED_JUDGMENT_OPTIONS), assess);
  expect(status.connections[0].limits).toEqual({
    requestsPerMinute: 300,
    tokensPerMinute: null,
    windowSeconds: 2,
    store: 'redis',
  });
  expect(status.queue).toEqual({
    name: 'judgment-assess',
    connection: 'jev',
    waiting: 40,
    delayed: 0,
    active: 0,
    // The queue's window is the connection's plus a margin of 200 ms, so it never runs ahead of the Engine's.
    rateLimit: { max: 10, durationMs: 2200 },
    drainSeconds: 9,
  });
  await Promise.all([spawnWorker(prefix, 'worker-a', limits), spawnWorker(prefix, 'worker-b', limits)]);

  await waitForProgress('40 assess jobs to complete', () => assess.getCompletedCount(), 40, 15_000);
  const times = decisionRequests().map((request) => request.at);
  expect(times).toHaveLength(40);
  // 40 requests at 10 per 2 s need four windows: at least 6 s from the first request to the last.
  expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(5_500);
  // Both processes did part of the work.
  const jobs = await assess.getJobs(['completed']);
  expect(new Set(jobs.map((job) => job.processedBy))).toEqual(new Set(['worker-a', 'worker-b']));
  expect(await assess.getFailedCount()).toBe(0);
});

it("an Engine's 429 pauses the whole queue for its retry-after; the job is not failed and runs again", async () => {
  // The Engine allows 5 requests per 3-second window per key; the connection declares no limits of its own.
  sim = new JevSimulator({ apiKey: API_KEY, limits: { requests: 5, windowMs: 3_000 } });
  await sim.start();
  const prefix = newPrefix();
  const assess = await dispatchFromProducer(prefix, 15, undefined);
  await Promise.all([spawnWorker(prefix, 'worker-a', undefined), spawnWorker(prefix, 'worker-b', undefined)]);

  await waitForProgress('15 assess jobs to complete', () => assess.getCompletedCount(), 15, 15_000);
  expect(await assess.getFailedCount()).toBe(0);
  const requests = decisionRequests();
  const answered = requests.filter((request) => request.status === 200);
  expect(answered).toHaveLength(15);
  expect(sim.rateLimited).toBeGreaterThan(0);
  // The queue paused after a 429: no worker hammered the Engine while the window was closed. At most one refused
  // request per job slot (2 processes × 8) per window, over the three windows the 15 answers need.
  expect(sim.rateLimited).toBeLessThanOrEqual(2 * 8 * 3);
  // Every Judgment was assessed exactly once: one record each, none Unassessed.
  const records = await db.getRepository(AssessmentRecord).find({ where: { judgment: 'queue-moderation' } });
  expect(records.filter((record) => record.failureType !== null)).toHaveLength(0);
  expect(records).toHaveLength(15);
});

it('live dispatches run before bulk ones (BullMQ priority) within the same limit', async () => {
  sim = new JevSimulator({ apiKey: API_KEY });
  await sim.start();
  const prefix = newPrefix();
  const limits = { requestsPerMinute: 150, windowSeconds: 2 }; // 5 per 2-second window
  const assess = await dispatchFromProducer(prefix, 20, limits, 10);
  const judge = apps[0].get(Judge);
  const live = await Promise.all(
    Array.from({ length: 5 }, (_, n) => judge.dispatch(new Moderation(`Live ${n} [[toxic=0.9]]`))),
  );
  await Promise.all([spawnWorker(prefix, 'worker-a', limits), spawnWorker(prefix, 'worker-b', limits)]);
  await waitForProgress('25 assess jobs to complete', () => assess.getCompletedCount(), 25, 15_000);
  const order = decisionRequests().map((request) => JSON.stringify(request.body));
  // The five live Judgments were asked first, although dispatched after the twenty bulk ones.
  const firstFive = order.slice(0, 5).filter((body) => body.includes('Live '));
  expect(firstFive).toHaveLength(5);
  expect(live).toHaveLength(5);
});

/** An app without the queue whose limits are counted on the test's Redis, as another process would count them. */
async function inlineApp(prefix: string, limits: object, limiter: { maxWait: number; bulkShare?: number }) {
  const app = await startQueueApp({
    database: DATABASE,
    prefix,
    simulatorUrl: sim.url!,
    queue: { enabled: false },
    options: {
      engines: connection(limits),
      limiter: { redis, prefix: `${prefix}:limits`, ...limiter },
      throwOnFailure: false,
    },
  });
  apps.push(app);
  return app;
}

it('inline calls share the limit through Redis: they wait for a slot, then fail fast with EngineRateLimited', async () => {
  sim = new JevSimulator({ apiKey: API_KEY });
  await sim.start();
  const prefix = newPrefix();
  // 3 requests per 5-second window, counted for both apps together.
  const limits = { requestsPerMinute: 36, windowSeconds: 5 };
  const first = (await inlineApp(prefix, limits, { maxWait: 0.5 })).get(Judge);
  const second = (await inlineApp(prefix, limits, { maxWait: 0.5 })).get(Judge);
  await first.assess(new Moderation('one [[toxic=0.1]]'));
  await first.assess(new Moderation('two [[toxic=0.1]]'));
  await second.assess(new Moderation('three [[toxic=0.1]]'));

  const started = Date.now();
  const refused = await first.assess(new Moderation('four [[toxic=0.1]]'));
  const waited = Date.now() - started;
  expect(refused).toBeInstanceOf(Unassessed);
  const error = (refused as unknown as Unassessed<Moderation>).error;
  expect(error).toBeInstanceOf(EngineRateLimited);
  expect(error.message).toMatch(
    /no free slot under engines\.jev\.limits within limiter\.maxWait \(0\.5 s\).*Retry in \d+ s/,
  );
  expect((error as EngineRateLimited).retryAfterMs).toBeGreaterThan(500);
  // Failing fast: no wait for a window that opens after maxWait.
  expect(waited).toBeLessThan(1_000);
  // Nothing was sent for it, and the attempt is recorded as Unassessed like any Engine failure.
  expect(decisionRequests()).toHaveLength(3);
  const failed = await db.getRepository(AssessmentRecord).findBy({ failureType: 'EngineRateLimited' });
  expect(failed).toHaveLength(1);

  // With a longer maxWait the call waits for the next window and is answered.
  const patient = (await inlineApp(prefix, limits, { maxWait: 10 })).get(Judge);
  const before = Date.now();
  const answered = await patient.assess(new Moderation('five [[toxic=0.1]]'));
  expect(answered).not.toBeInstanceOf(Unassessed);
  expect(Date.now() - before).toBeGreaterThanOrEqual((error as EngineRateLimited).retryAfterMs! - 1_000);
  expect(decisionRequests()).toHaveLength(4);
});

it('calibration runs in the bulk lane: live calls are answered within one window while it runs', async () => {
  sim = new JevSimulator({ apiKey: API_KEY });
  await sim.start();
  const prefix = newPrefix();
  // 10 requests per 2-second window, half of it for bulk work.
  const limits = { requestsPerMinute: 300, windowSeconds: 2 };
  const app = await inlineApp(prefix, limits, { maxWait: 30, bulkShare: 0.5 });
  const customer = Object.assign(new Customer(), { id: 1, name: 'Ada' });
  const cases = Array.from({ length: 20 }, (_, n) =>
    LabelledCase.of(new RefundCheck(customer, `Case ${n} [[abusive=0.1]]`), RefundOutcome.Approve),
  );
  const calibrationStarted = Date.now();
  const calibration = app.get(Calibration).for(RefundCheck).cases(cases).concurrency(10).run();
  await new Promise((resolve) => setTimeout(resolve, 200));

  const liveStarted = Date.now();
  const live = await Promise.all(
    Array.from({ length: 5 }, (_, n) => app.get(Judge).assess(new Moderation(`Live ${n} [[toxic=0.1]]`))),
  );
  const liveTook = Date.now() - liveStarted;
  expect(live.filter((result) => result instanceof Unassessed)).toHaveLength(0);
  expect(liveTook).toBeLessThan(2_000 + 500);

  const report = await calibration;
  expect(report.results[0].unassessed).toBe(0);
  // 20 bulk rounds at 5 per 2-second window need four windows.
  expect(Date.now() - calibrationStarted).toBeGreaterThanOrEqual(5_500);
});
