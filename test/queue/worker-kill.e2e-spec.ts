// Nothing lost when a worker process dies: 1,000 queued Judgments, the worker SIGKILLed mid-run, a second worker
// takes over (BullMQ's stalled-job recovery). Every Judgment ends with exactly one decided record. And nothing paid
// twice when the worker dies right after recording an answer: the job taken over decides that record.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { INestApplicationContext } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { Judge } from 'nestjs-judgment';
import {
  API_KEY,
  Customer,
  RefundCheck,
  freshDatabase,
  inspectQueue,
  openDatabase,
  startQueueApp,
  uniquePrefix,
  waitForProgress,
} from './queue.fixtures';
import { clearPrefix } from '../support/redis';
import { spawnWorkerProcess, stopWorkerProcess, extraRuns } from './worker-process';

const DATABASE = 'judgment_queue_kill';
const JUDGMENTS = 1000;
const KILL_AFTER = 300;
const CONCURRENCY = 16;
/**
 * How long the workers may go without completing a job before the test fails. Progress, not a wall clock: a loaded
 * machine only makes the run slower. Above the stalled-job takeover after the kill (lock 4 s + check every 1 s).
 */
const STALL_MS = 20_000;
// Jest's deadline is only a backstop here, far above the run's length on a loaded machine: STALL_MS fails first.
jest.setTimeout(240_000);

let sim: JevSimulator;
let db: DataSource;
const producers: INestApplicationContext[] = [];
const prefixes: string[] = [];
const queues: Queue[] = [];
const workers: ChildProcess[] = [];

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
  sim = new JevSimulator({ apiKey: API_KEY, latencyMs: 20, logRequests: false });
  await sim.start();
});

afterAll(async () => {
  for (const worker of workers) await stopWorkerProcess(worker);
  for (const producer of producers) await producer.close();
  for (const queue of queues) await queue.close();
  for (const prefix of prefixes) await clearPrefix(prefix);
  await db?.destroy();
  await sim?.stop();
});

/** Spawns a worker process on the suite's prefix and database; resolves once it prints `ready`. */
async function spawnWorker(prefix: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  return spawnWorkerProcess(
    'worker.fixture.ts',
    {
      JQ_DATABASE: DATABASE,
      JQ_PREFIX: prefix,
      JQ_SIMULATOR_URL: sim.url!,
      JQ_CONCURRENCY: String(CONCURRENCY),
      ...env,
    },
    workers,
  );
}

/** A producer app (no workers) on a fresh prefix, and the two queues to inspect. */
async function startProducer() {
  const prefix = uniquePrefix();
  prefixes.push(prefix);
  const producer = await startQueueApp({
    database: DATABASE,
    prefix,
    simulatorUrl: sim.url!,
    queue: { runWorkers: false },
  });
  producers.push(producer);
  const assess = inspectQueue('judgment-assess', prefix);
  const decide = inspectQueue('judgment-decide', prefix);
  queues.push(assess, decide);
  return { prefix, judge: producer.get(Judge), assess, decide };
}

const startedMoreThanOnce = (jobs: Job[]) => jobs.filter((job) => job.attemptsStarted > 1).length;

it('a worker process killed mid-run loses nothing: every Judgment ends with exactly one decided record', async () => {
  const { prefix, judge, assess, decide } = await startProducer();
  const first = await spawnWorker(prefix);

  const customers = await db
    .getRepository(Customer)
    .save(Array.from({ length: JUDGMENTS }, (_, n) => Object.assign(new Customer(), { name: `Customer ${n}` })));
  for (let from = 0; from < JUDGMENTS; from += 100) {
    await Promise.all(
      customers.slice(from, from + 100).map((customer, n) => {
        const marker = (from + n) % 2 ? '[[abusive=0.9]]' : '[[abusive=0.1]]';
        return judge.dispatch(new RefundCheck(customer, `Case ${from + n}: refund please. ${marker}`));
      }),
    );
  }

  await waitForProgress("the first worker's assess jobs", () => assess.getCompletedCount(), KILL_AFTER, STALL_MS);
  const activeAtKill = await assess.getActiveCount();
  first.kill('SIGKILL');
  await once(first, 'exit');
  const assessedAtKill = await assess.getCompletedCount();

  await spawnWorker(prefix);
  const decidedJobs = () => decide.getCompletedCount();
  await waitForProgress('the decide jobs', decidedJobs, JUDGMENTS, STALL_MS).catch(async (error: Error) => {
    const states = ['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed', 'waiting-children'] as const;
    const where = { assess: await assess.getJobCounts(...states), decide: await decide.getJobCounts(...states) };
    const failed = [...(await assess.getFailed(0, 2)), ...(await decide.getFailed(0, 2))].map(
      (job) => job.failedReason,
    );
    throw new Error(`${error.message} Jobs: ${JSON.stringify(where)}; failed: ${JSON.stringify(failed)}`);
  });

  const [{ decided, answered, subjects }] = await db.query(
    `SELECT count(*) FILTER (WHERE outcome IS NOT NULL)::int AS decided,
            count(*) FILTER (WHERE failure_type IS NULL)::int AS answered,
            count(DISTINCT subject_id) FILTER (WHERE outcome IS NOT NULL)::int AS subjects
       FROM judgment_assessments`,
  );
  const [{ twice }] = await db.query(
    `SELECT count(*)::int AS twice FROM (SELECT subject_id FROM judgment_assessments WHERE outcome IS NOT NULL
       GROUP BY subject_id HAVING count(*) > 1) AS d`,
  );
  const assessJobs = await assess.getJobs(['completed'], 0, -1);
  const decideJobs = await decide.getJobs(['completed'], 0, -1);
  const counts = {
    judgments: JUDGMENTS,
    assessedAtKill,
    activeAtKill,
    engineRequests: sim.requestCount,
    answeredRecords: answered,
    decidedRecords: decided,
    assessJobsRestarted: startedMoreThanOnce(assessJobs),
    assessExtraRuns: extraRuns(assessJobs),
    decideJobsRestarted: startedMoreThanOnce(decideJobs),
    failedJobs: (await assess.getFailedCount()) + (await decide.getFailedCount()),
  };
  console.log(`worker kill run: ${JSON.stringify(counts)}`);

  expect(decided).toBe(JUDGMENTS);
  expect(subjects).toBe(JUDGMENTS);
  expect(twice).toBe(0);
  expect(assessJobs).toHaveLength(JUDGMENTS);
  expect(counts.failedJobs).toBe(0);
  // The kill hit running jobs: they were taken over by the second worker (stalled-job recovery).
  expect(counts.assessJobsRestarted + counts.decideJobsRestarted).toBeGreaterThan(0);
  // Only a re-run asks the Engine again (a paid round) or leaves an undecided answered record: a job killed after its
  // Engine round, or run twice when a busy worker renewed its lock late. At most one of each per extra run.
  expect(counts.engineRequests - JUDGMENTS).toBeLessThanOrEqual(counts.assessExtraRuns);
  expect(answered - JUDGMENTS).toBeLessThanOrEqual(counts.assessExtraRuns);
});

it('a worker killed right after recording an answer: the job taken over decides that record, and the Engine is asked once', async () => {
  const { prefix, judge, assess, decide } = await startProducer();
  const ROUNDS = 6;
  const KILLED_AT = 3;
  const customers = await db
    .getRepository(Customer)
    .save(Array.from({ length: ROUNDS }, (_, n) => Object.assign(new Customer(), { name: `Recorded ${n}` })));
  const requestsBefore = sim.requestCount;
  // One job at a time: when the third answer is recorded, the worker dies with that job, and no other, running.
  const first = await spawnWorker(prefix, { JQ_CONCURRENCY: '1', JQ_KILL_AFTER_RECORDED: String(KILLED_AT) });
  for (const customer of customers) await judge.dispatch(new RefundCheck(customer, `Case ${customer.id}.`));
  await once(first, 'exit');
  await spawnWorker(prefix, { JQ_CONCURRENCY: '1' });
  await waitForProgress('the decide jobs', () => decide.getCompletedCount(), ROUNDS, STALL_MS);

  const ids = customers.map((customer) => String(customer.id));
  const records: { subject_id: string; outcome: string | null }[] = await db.query(
    'SELECT subject_id, outcome FROM judgment_assessments WHERE subject_id = ANY($1) ORDER BY id',
    [ids],
  );
  const assessJobs = await assess.getJobs(['completed'], 0, -1);
  console.log(
    `killed after recording: ${JSON.stringify({ engineRequests: sim.requestCount - requestsBefore, records: records.length, restarted: startedMoreThanOnce(assessJobs) })}`,
  );
  // The killed job ran again (taken over) and found the answer its first run recorded: no second round, no second row.
  expect(startedMoreThanOnce(assessJobs)).toBe(1);
  expect(sim.requestCount - requestsBefore).toBe(ROUNDS);
  expect(records).toHaveLength(ROUNDS);
  expect(new Set(records.map((record) => record.subject_id))).toEqual(new Set(ids));
  expect(records.every((record) => record.outcome !== null)).toBe(true);
  expect((await assess.getFailedCount()) + (await decide.getFailedCount())).toBe(0);
});
