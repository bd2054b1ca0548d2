// PostgreSQL blinks while Judgments are queued (issue 17, item 1): the jobs wait the outage out without spending
// their attempts, paid answers that could not be recorded are recorded on the next run without asking the Engine
// again, and every Judgment is decided exactly once after the server returns. A private PostgreSQL server (its own
// port and data directory) is stopped and started; the shared one is never touched. Real Redis, the Jev simulator.
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { Judge } from 'nestjs-judgment';
import {
  API_KEY,
  AssessmentRecord,
  Customer,
  EventLog,
  RefundCheck,
  freshDatabase,
  inspectQueue,
  openDatabase,
  startQueueApp,
  uniquePrefix,
  waitFor,
  waitForProgress,
} from './queue.fixtures';
import { clearPrefix } from '../support/redis';
import { PrivatePostgres } from '../support/private-postgres';
import { freePort } from '../support/service-port';

const DATABASE = 'judgment_harden_outage';
const JUDGMENTS = 120;
const CONCURRENCY = 8;

let postgres: PrivatePostgres;
let sim: JevSimulator;
let db: DataSource;
let app: INestApplicationContext;
let queues: Queue[] = [];
const prefix = `${uniquePrefix()}-harden`;

beforeAll(async () => {
  postgres = PrivatePostgres.create(await freePort());
  await freshDatabase(DATABASE, postgres.port);
  db = await openDatabase(DATABASE, postgres.port);
  sim = new JevSimulator({ apiKey: API_KEY, latencyMs: 100 });
}, 60_000);

afterAll(async () => {
  await app?.close();
  for (const queue of queues) await queue.close();
  await clearPrefix(prefix);
  await db?.destroy().catch(() => undefined);
  await sim?.stop();
  postgres?.destroy();
});

it('a PostgreSQL outage mid-run: every Judgment decided exactly once, no answer paid twice, no job failed', async () => {
  const simulatorUrl = await sim.start();
  app = await startQueueApp({
    database: DATABASE,
    port: postgres.port,
    prefix,
    simulatorUrl,
    queue: { concurrency: CONCURRENCY, outage: { delay: 200, maxDelay: 1000 } },
  });
  const events = app.get(EventLog);
  const assess = inspectQueue('judgment-assess', prefix);
  const decide = inspectQueue('judgment-decide', prefix);
  queues = [assess, decide];

  const customers = await db
    .getRepository(Customer)
    .save(Array.from({ length: JUDGMENTS }, (_, index) => Object.assign(new Customer(), { name: `c${index}` })));
  const judge = app.get(Judge);
  for (const [index, customer] of customers.entries()) {
    await judge.dispatch(new RefundCheck(customer, `Refund ${index}. [[abusive=${index % 2 ? 0.8 : 0.1}]]`));
  }

  // Stop the server while work is under way: some Judgments decided, some being assessed, most still waiting.
  await waitFor('the first Judgments to be decided', async () => events.decided.length >= 10, 30_000);
  postgres.stop();
  const stoppedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 8000));
  postgres.start();
  const outageMs = Date.now() - stoppedAt;

  await waitForProgress('every Judgment to be decided', async () => events.decided.length, JUDGMENTS, 30_000);
  await waitFor('both queues to drain', async () => {
    const [a, d] = await Promise.all([assess.getJobCounts(), decide.getJobCounts()]);
    return a.completed + a.failed === JUDGMENTS && d.completed + d.failed === JUDGMENTS ? { a, d } : undefined;
  });
  const [assessCounts, decideCounts] = await Promise.all([assess.getJobCounts(), decide.getJobCounts()]);
  expect({ assessFailed: assessCounts.failed, decideFailed: decideCounts.failed }).toEqual({
    assessFailed: 0,
    decideFailed: 0,
  });

  const records = await db.getRepository(AssessmentRecord).find();
  expect(records).toHaveLength(JUDGMENTS);
  expect(new Set(records.map((record) => record.subjectId)).size).toBe(JUDGMENTS);
  expect(records.filter((record) => record.outcome === null)).toEqual([]);
  expect(events.decided).toHaveLength(JUDGMENTS);
  expect(new Set(events.decided.map((event) => event.record?.id)).size).toBe(JUDGMENTS);
  // The jobs did meet the outage, and waited it out rather than spending their single attempt.
  const waited = (await assess.getCompleted(0, -1)).filter((job) => (job.data.outageRetries ?? 0) > 0);
  expect(waited.length).toBeGreaterThan(0);
  expect(waited.every((job) => job.attemptsMade <= 1)).toBe(true);
  // No answer paid twice: at most one more request than Judgments per job that was in flight when the server went.
  expect(sim.requestCount).toBeLessThanOrEqual(JUDGMENTS + CONCURRENCY);
  console.log(
    `outage ${outageMs} ms: ${JUDGMENTS} decided, ${sim.requestCount} Engine requests, ` +
      `${assessCounts.failed + decideCounts.failed} jobs failed`,
  );
}, 180_000);
