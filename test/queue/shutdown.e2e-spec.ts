// Shutdown during a retry wait (issue 17, item 3): a 429 asking for 25 s must not hold app.close(), nothing more is
// sent once closing began, and the job is left for another worker, which assesses it; so too when the 429 comes back
// while the worker closes. Real Redis and PostgreSQL
// (its own database and key prefix), the Jev simulator over HTTP.
import type { INestApplicationContext } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { Judge } from 'nestjs-judgment';
import { AssessProcessor } from '../../libs/judgment/src/queue/judgment.processors';
import {
  API_KEY,
  Customer,
  RefundCheck,
  finished,
  freshDatabase,
  inspectQueue,
  openDatabase,
  startQueueApp,
  uniquePrefix,
  waitFor,
} from './queue.fixtures';
import { clearPrefix } from '../support/redis';

const DATABASE = 'judgment_harden_shutdown';
const prefix = `${uniquePrefix()}-harden`;
let sim: JevSimulator;
let simulatorUrl: string;
let db: DataSource;
/** What the test opened and has not closed itself: closed after it, pass or fail, so no handle keeps Jest alive. */
const open: Array<INestApplicationContext | Queue> = [];

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
  sim = new JevSimulator({ apiKey: API_KEY });
  simulatorUrl = await sim.start();
});

afterAll(async () => {
  for (const resource of open.splice(0).reverse()) await resource.close();
  await clearPrefix(prefix);
  await clearPrefix(`${prefix}-race`);
  await clearPrefix(`${prefix}-closing`);
  await db?.destroy();
  await sim?.stop();
});

it('app.close() cancels a retry wait at once, sends nothing more, and leaves the job for another worker', async () => {
  const settings = {
    database: DATABASE,
    prefix,
    simulatorUrl,
    options: {
      engine: 'jev',
      engines: { jev: { driver: 'jev', key: API_KEY, url: simulatorUrl, model: 'jev-1.13.0', retries: 3 } },
    },
  } as const;
  const first = await startQueueApp(settings);
  open.push(first);
  sim.fail({ status: 429, retryAfter: 25, retryAfterMs: null });
  const customer = await db.getRepository(Customer).save(Object.assign(new Customer(), { name: 'Ann' }));
  const id = await first.get(Judge).dispatch(new RefundCheck(customer, 'Refund me. [[abusive=0.2]]'));
  await waitFor('the rate-limited request', async () => sim.requestCount === 1);

  const closing = Date.now();
  open.splice(open.indexOf(first), 1);
  await first.close();
  const closeMs = Date.now() - closing;
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(sim.requestCount).toBe(1);
  expect(closeMs).toBeLessThan(5000);

  const assess = inspectQueue('judgment-assess', prefix);
  open.push(assess);
  expect(await assess.getJobState(id)).not.toBe('failed');
  const second = await startQueueApp(settings);
  open.push(second);
  // The Engine asked for 25 s: the job may wait that out (delayed, or the queue paused) before the new worker runs it.
  const { job, state } = await finished(assess, id, 45_000);
  expect(state).toBe('completed');
  expect(job.returnvalue).toMatchObject({ kind: 'recorded' });
  expect(sim.requestCount).toBe(2);
  console.log(`app.close() during a 25 s retry wait took ${closeMs} ms; Engine requests after close began: 0`);
}, 60_000);

it('app.close() just after a job was refused by the rate limit does not wait the pause out', async () => {
  // The race a loaded machine found: the processor found the worker open and gave the job back to BullMQ's rate
  // limit; close() began while BullMQ was moving the job back, and its rate-limit wait then held close() for 25 s.
  // Moving the job back is held here until close() has begun, so the race is taken every time.
  const first = await startQueueApp({
    database: DATABASE,
    prefix: `${prefix}-race`,
    simulatorUrl,
    options: {
      engine: 'jev',
      engines: { jev: { driver: 'jev', key: API_KEY, url: simulatorUrl, model: 'jev-1.13.0', retries: 3 } },
    },
  });
  open.push(first);
  // The assess processor is a subclass bound to its queue name: found among the providers by its base class.
  const processor = first
    .get(DiscoveryService)
    .getProviders()
    .map((wrapper) => wrapper.instance as unknown)
    .find((instance) => instance instanceof AssessProcessor) as AssessProcessor;
  const worker = processor.worker as unknown as Record<string, (...args: unknown[]) => unknown>;
  const moveBack = worker.moveLimitedBackToWait.bind(worker);
  let refused!: () => void;
  let release!: () => void;
  const wasRefused = new Promise<void>((resolve) => (refused = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  worker.moveLimitedBackToWait = async (...args: unknown[]) => {
    refused();
    await released;
    return moveBack(...args);
  };
  const sentBefore = sim.requestCount;
  sim.fail({ status: 429, retryAfter: 25, retryAfterMs: null });
  let closeMs: number;
  try {
    const customer = await db.getRepository(Customer).save(Object.assign(new Customer(), { name: 'Bo' }));
    await first.get(Judge).dispatch(new RefundCheck(customer, 'Refund me. [[abusive=0.2]]'));
    await wasRefused;

    const started = Date.now();
    open.splice(open.indexOf(first), 1);
    const closing = first.close();
    await waitFor('close() to reach the worker', async () => Boolean(worker.closing));
    release();
    await closing;
    closeMs = Date.now() - started;
  } finally {
    release(); // never leave the worker's job held, or closing the app after a failure would hang
  }
  expect(sim.requestCount - sentBefore).toBe(1);
  expect(closeMs).toBeLessThan(5000);
  console.log(`app.close() begun while a rate-limited job was being given back took ${closeMs} ms`);
}, 60_000);

it('a 429 that comes back while the worker closes gives the job back, with the pause kept on the queue', async () => {
  const closingPrefix = `${prefix}-closing`;
  const app = await startQueueApp({
    database: DATABASE,
    prefix: closingPrefix,
    simulatorUrl,
    options: {
      engine: 'jev',
      engines: { jev: { driver: 'jev', key: API_KEY, url: simulatorUrl, model: 'jev-1.13.0', retries: 3 } },
    },
  });
  open.push(app);
  const assess = inspectQueue('judgment-assess', closingPrefix);
  open.push(assess);
  const sentBefore = sim.requestCount;
  sim.setLatency(1500);
  sim.fail({ status: 429, retryAfter: 25, retryAfterMs: null });
  let closeMs: number;
  let id: string;
  try {
    const customer = await db.getRepository(Customer).save(Object.assign(new Customer(), { name: 'Cy' }));
    id = await app.get(Judge).dispatch(new RefundCheck(customer, 'Refund me. [[abusive=0.2]]'));
    await waitFor('the request in flight', async () => sim.requestCount === sentBefore + 1);
    const started = Date.now();
    open.splice(open.indexOf(app), 1);
    await app.close(); // the 429 arrives 1.5 s after the request, while the worker waits for its job
    closeMs = Date.now() - started;
  } finally {
    sim.setLatency(0);
  }
  const job = await assess.getJob(id);
  expect(['waiting', 'prioritized']).toContain(await job!.getState());
  expect(job!.attemptsMade).toBe(0);
  expect(await assess.getRateLimitTtl()).toBeGreaterThan(20_000);
  expect(sim.requestCount - sentBefore).toBe(1);
  expect(closeMs).toBeGreaterThan(1000);
  expect(closeMs).toBeLessThan(5000);
}, 60_000);
