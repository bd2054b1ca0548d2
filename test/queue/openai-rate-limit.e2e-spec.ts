// The openai driver's 429 in the queue (issues 14, 17, 18): like the Jev driver's, it pauses the whole assess queue
// for the server's retry-after instead of being retried inside the job. Real Redis and PostgreSQL, the simulator's
// OpenAI mode enforcing a per-key request limit over HTTP.
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { OpenAiSimulator } from 'nestjs-judgment/simulator';
import { AssessmentRecord, Judge } from 'nestjs-judgment';
import {
  Moderation,
  freshDatabase,
  inspectQueue,
  openDatabase,
  startQueueApp,
  uniquePrefix,
  waitForProgress,
} from './queue.fixtures';
import { clearPrefix } from '../support/redis';

const DATABASE = 'judgment_openai_rate_e2e';
const KEY = 'sk-proj-openai-rate-e2e';
jest.setTimeout(120_000);

let db: DataSource;
let sim: OpenAiSimulator;
let app: INestApplicationContext | undefined;
let assess: Queue | undefined;
const prefix = uniquePrefix();

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
});

afterAll(async () => {
  await app?.close();
  await assess?.close();
  await clearPrefix(prefix);
  await sim?.stop();
  await db?.destroy();
});

it("the server's 429 pauses the whole queue for its retry-after; no job fails or is retried inside", async () => {
  // The server allows 5 requests per 3-second window per key; the connection declares no limits and no retries, so
  // a 429 retried in the job (or not deferred) would fail the Judgment as Unassessed.
  sim = new OpenAiSimulator({ apiKey: KEY, limits: { requests: 5, windowMs: 3_000 } });
  const url = await sim.start();
  app = await startQueueApp({
    database: DATABASE,
    prefix,
    simulatorUrl: url,
    queue: { concurrency: 8 },
    options: {
      engine: 'openai',
      engines: { openai: { driver: 'openai', url, key: KEY, model: 'sim-4o-2026-09-17', retries: 0 } },
    },
  });
  assess = inspectQueue('judgment-assess', prefix);
  const judge = app.get(Judge);
  const started = Date.now();
  await Promise.all(Array.from({ length: 15 }, (_, n) => judge.dispatch(new Moderation(`Post ${n} [[toxic=0.2]]`))));

  await waitForProgress('15 assess jobs to complete', () => assess!.getCompletedCount(), 15, 15_000);
  const elapsed = Date.now() - started;
  expect(await assess.getFailedCount()).toBe(0);
  const answered = sim.requests.filter((request) => request.status === 200);
  expect(answered).toHaveLength(15);
  expect(sim.rateLimited).toBeGreaterThan(0);
  // Paused, not hammering: at most one refused request per job slot per window, over the three windows needed.
  expect(sim.rateLimited).toBeLessThanOrEqual(8 * 3);
  // 15 answers at 5 per 3 s need three windows: the queue waited for them.
  expect(elapsed).toBeGreaterThanOrEqual(5_500);
  const records = await db.getRepository(AssessmentRecord).find({ where: { judgment: 'queue-moderation' } });
  expect(records).toHaveLength(15);
  expect(records.filter((record) => record.failureType !== null)).toHaveLength(0);
});
