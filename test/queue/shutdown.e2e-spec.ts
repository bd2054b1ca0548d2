// Shutdown during a retry wait (issue 17, item 3): a 429 asking for 25 s must not hold app.close(), nothing more is
// sent once closing began, and the job is left for another worker, which assesses it. Real Redis and PostgreSQL
// (its own database and key prefix), the Jev simulator over HTTP.
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { Judge } from 'nestjs-judgment';
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
let db: DataSource;
/** What the test opened and has not closed itself: closed after it, pass or fail, so no handle keeps Jest alive. */
const open: Array<INestApplicationContext | Queue> = [];

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
  sim = new JevSimulator({ apiKey: API_KEY });
});

afterAll(async () => {
  for (const resource of open.splice(0).reverse()) await resource.close();
  await clearPrefix(prefix);
  await db?.destroy();
  await sim?.stop();
});

it('app.close() cancels a retry wait at once, sends nothing more, and leaves the job for another worker', async () => {
  const simulatorUrl = await sim.start();
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
