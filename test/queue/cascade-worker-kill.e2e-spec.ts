// The escalation chain survives a worker kill (issue 33, point 3): 200 queued Judgments that all escalate from the
// cheap tier to the strong one, the worker SIGKILLed while the strong tier's jobs run, a second worker takes over.
// Every Judgment ends with exactly one decided record per tier; a tier is asked again only by a re-run job.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { Judge } from 'nestjs-judgment';
import { clearPrefix } from '../support/redis';
import { QueuedClaim, cascadeEngines } from './cascade.fixtures';
import {
  API_KEY,
  freshDatabase,
  inspectQueue,
  openDatabase,
  startQueueApp,
  uniquePrefix,
  waitForProgress,
} from './queue.fixtures';
import { spawnWorkerProcess, extraRuns } from './worker-process';

const DATABASE = 'judgment_queue_cascade_kill';
const JUDGMENTS = 200;
const KILL_AFTER = 40;
const STALL_MS = 20_000;
jest.setTimeout(180_000);

let cheap: JevSimulator;
let strong: JevSimulator;
let db: DataSource;
let producer: INestApplicationContext | undefined;
let prefix: string | undefined;
const queues: Queue[] = [];
const workers: ChildProcess[] = [];

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
  cheap = new JevSimulator({ apiKey: API_KEY, latencyMs: 20, logRequests: false });
  strong = new JevSimulator({ apiKey: API_KEY, latencyMs: 20, logRequests: false });
  await Promise.all([cheap.start(), strong.start()]);
});

afterAll(async () => {
  for (const worker of workers) {
    if (worker.exitCode === null && worker.signalCode === null) {
      const exited = once(worker, 'exit');
      worker.kill('SIGKILL');
      await exited;
    }
  }
  await producer?.close();
  for (const queue of queues) await queue.close();
  if (prefix) await clearPrefix(prefix);
  await db?.destroy();
  await Promise.all([cheap?.stop(), strong?.stop()]);
});

async function spawnWorker(): Promise<ChildProcess> {
  return spawnWorkerProcess(
    'cascade-worker.fixture.ts',
    {
      JQ_DATABASE: DATABASE,
      JQ_PREFIX: prefix!,
      JQ_CHEAP_URL: cheap.url!,
      JQ_STRONG_URL: strong.url!,
    },
    workers,
  );
}

it('a worker killed while the strong tier runs loses nothing: one decided record per Judgment and tier', async () => {
  prefix = uniquePrefix();
  producer = await startQueueApp({
    database: DATABASE,
    prefix,
    simulatorUrl: cheap.url!,
    judgments: [QueuedClaim],
    options: cascadeEngines(cheap.url!, strong.url!),
    queue: { runWorkers: false },
  });
  const cheapQueue = inspectQueue('judgment-assess', prefix);
  const strongQueue = inspectQueue('judgment-assess-strong', prefix);
  const decide = inspectQueue('judgment-decide', prefix);
  queues.push(cheapQueue, strongQueue, decide);
  const first = await spawnWorker();

  const judge = producer.get(Judge);
  // 0.7: in the cheap tier's band (0.1–0.9), decided `refuse` by the strong tier (≥ 0.6).
  for (let n = 0; n < JUDGMENTS; n += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, k) => judge.dispatch(new QueuedClaim(`Claim ${n + k}. [[fraud=0.7]]`))),
    );
  }

  await waitForProgress('strong-tier assess jobs', () => strongQueue.getCompletedCount(), KILL_AFTER, STALL_MS);
  first.kill('SIGKILL');
  await once(first, 'exit');
  const strongAtKill = await strongQueue.getCompletedCount();

  await spawnWorker();
  await waitForProgress('every decide job', () => decide.getCompletedCount(), 2 * JUDGMENTS, STALL_MS);

  const rows: { tier: number; decided: number; claims: number; refused: number; escalated: number }[] = await db.query(
    `SELECT (provenance_details::jsonb -> 'cascade' ->> 'tier')::int AS tier,
              count(*) FILTER (WHERE outcome IS NOT NULL)::int AS decided,
              count(DISTINCT evidence_fingerprint) FILTER (WHERE outcome IS NOT NULL)::int AS claims,
              count(*) FILTER (WHERE outcome = 'refuse')::int AS refused,
              count(*) FILTER (WHERE decision_trace::jsonb -> 'escalated' IS NOT NULL)::int AS escalated
         FROM judgment_assessments GROUP BY 1 ORDER BY 1`,
  );
  const cheapJobs = await cheapQueue.getJobs(['completed'], 0, -1);
  const strongJobs = await strongQueue.getJobs(['completed'], 0, -1);
  const decideJobs = await decide.getJobs(['completed'], 0, -1);
  const counts = {
    strongAtKill,
    cheapRequests: cheap.requestCount,
    strongRequests: strong.requestCount,
    cheapExtraRuns: extraRuns(cheapJobs),
    strongExtraRuns: extraRuns(strongJobs),
    decideExtraRuns: extraRuns(decideJobs),
    failed:
      (await cheapQueue.getFailedCount()) + (await strongQueue.getFailedCount()) + (await decide.getFailedCount()),
  };
  console.log(`cascade worker kill run: ${JSON.stringify({ ...counts, rows })}`);

  expect(rows).toEqual([
    { tier: 1, decided: JUDGMENTS, claims: JUDGMENTS, refused: 0, escalated: JUDGMENTS },
    { tier: 2, decided: JUDGMENTS, claims: JUDGMENTS, refused: JUDGMENTS, escalated: 0 },
  ]);
  expect(strongJobs).toHaveLength(JUDGMENTS);
  expect(counts.failed).toBe(0);
  expect(counts.cheapExtraRuns + counts.strongExtraRuns + counts.decideExtraRuns).toBeGreaterThan(0);
  // A tier is asked again only by a job that ran again (killed after its Engine round).
  expect(counts.cheapRequests - JUDGMENTS).toBeLessThanOrEqual(counts.cheapExtraRuns);
  expect(counts.strongRequests - JUDGMENTS).toBeLessThanOrEqual(counts.strongExtraRuns);
});
