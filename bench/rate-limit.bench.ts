// Rate limits across worker processes (issue 14). The Jev simulator refuses more than L requests per window per key
// (429 with retry-after); three worker processes on one Redis share the assess queue; 3× more Judgments are offered
// than the limit allows while they run. Side by side in one run:
//   - limited: engines.jev.limits = L (BullMQ's global rate limit + the Redis counters; a 429 pauses the queue);
//   - baseline: no limits, the driver's default 3 retries of a 429 inside the job (pauseOnRateLimit: false).
// Then a calibration of 500 cases started while live Judgments arrive below the limit: the live queue wait.
// Real Redis and PostgreSQL.   npm run bench:rate-limit
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Judge } from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { Calibration, LabelledCase } from 'nestjs-judgment/calibration';
import {
  API_KEY,
  Customer,
  MODEL,
  RefundCheck,
  RefundOutcome,
  createWorkerContext,
  freshDatabase,
  inspectQueue,
  openDatabase,
  uniquePrefix,
  waitForProgress,
} from '../test/queue/queue.fixtures';
import { clearPrefix } from '../test/support/redis';

const DATABASE = 'judgment_bench_rate';
const WINDOW_MS = 5_000;
/** L: requests per window (600 per minute). */
const PER_WINDOW = 50;
const LIMITS = { requestsPerMinute: (PER_WINDOW * 60_000) / WINDOW_MS, windowSeconds: WINDOW_MS / 1000 };
const WORKERS = 3;
const CONCURRENCY = 16;
/** Six windows' worth, offered at once: three times what the limit allows in the first two windows. */
const JUDGMENTS = 6 * PER_WINDOW;
const CALIBRATION_CASES = 500;

interface Seen {
  at: number;
  status: number;
}

async function main() {
  await freshDatabase(DATABASE);
  const db = await openDatabase(DATABASE);
  const customers = await db
    .getRepository(Customer)
    .save(Array.from({ length: JUDGMENTS }, (_, n) => Object.assign(new Customer(), { name: `C${n}` })));

  const results: Record<string, unknown> = {};
  for (const variant of ['limited', 'baseline'] as const) {
    await db.query('DELETE FROM judgment_assessments');
    results[variant] = await offered(variant, customers);
  }
  results.calibrationMidway = await calibrationMidway(customers.slice(0, 200));
  console.log(JSON.stringify({ limit: { perWindow: PER_WINDOW, windowMs: WINDOW_MS }, ...results }, null, 2));
  await db.destroy();
}

/** Offers JUDGMENTS at once to three workers; returns rate, 429s, retries and failures as the Engine and PostgreSQL saw them. */
async function offered(variant: 'limited' | 'baseline', customers: Customer[]) {
  const seen: Seen[] = [];
  const sim = new JevSimulator({
    apiKey: API_KEY,
    logRequests: false,
    latencyMs: 50,
    limits: { requests: PER_WINDOW, windowMs: WINDOW_MS },
    onRequest: (entry) => {
      if (entry.path === '/v1/systemone') seen.push({ at: entry.at, status: entry.status });
    },
  });
  await sim.start();
  const prefix = uniquePrefix();
  const limits = variant === 'limited' ? LIMITS : undefined;
  const producer = await producerApp(prefix, sim.url!, limits);
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, (_, n) =>
      spawnWorker(
        prefix,
        sim.url!,
        `w${n}`,
        limits,
        variant === 'limited' ? {} : { JQ_RETRIES: '3', JQ_PAUSE: 'false' },
      ),
    ),
  );
  const assess = inspectQueue('judgment-assess', prefix);
  const decide = inspectQueue('judgment-decide', prefix);
  const judge = producer.get(Judge);
  const started = Date.now();
  await Promise.all(customers.map((c) => judge.dispatch(new RefundCheck(c, `Case ${c.id} [[abusive=0.2]]`))));
  const finished = async () => (await assess.getCompletedCount()) + (await assess.getFailedCount());
  await waitForProgress('the assess jobs', finished, JUDGMENTS, 60_000);
  const db = await openDatabase(DATABASE);
  await waitForProgress(
    'the decisions',
    async () => Number((await db.query(`SELECT count(outcome)::int AS n FROM judgment_assessments`))[0].n),
    (await assess.getCompletedCount()) - (await unassessedCount(db)),
    30_000,
  );
  const elapsedMs = Date.now() - started;
  const [row] = await db.query(
    `SELECT count(*)::int AS records, count(failure_type)::int AS unassessed, count(outcome)::int AS decided,
            count(DISTINCT evidence_fingerprint)::int AS judgments
       FROM judgment_assessments`,
  );
  await db.destroy();
  const answered = seen.filter((s) => s.status === 200);
  const first = Math.min(...seen.map((s) => s.at));
  const windows = Math.floor((Math.max(...answered.map((s) => s.at)) - first) / WINDOW_MS) + 1;
  const report = {
    judgments: JUDGMENTS,
    elapsedMs,
    requests: seen.length,
    answered: answered.length,
    refused429: seen.filter((s) => s.status === 429).length,
    refused429AfterFirstWindow: seen.filter((s) => s.status === 429 && s.at >= first + WINDOW_MS).length,
    // In-job retries: requests beyond one per Judgment that the Engine answered or refused.
    retries: Math.max(
      0,
      seen.length - JUDGMENTS - (variant === 'limited' ? seen.filter((s) => s.status === 429).length : 0),
    ),
    requeuedAfter429: variant === 'limited' ? seen.filter((s) => s.status === 429).length : 0,
    windowsUsed: windows,
    sustainedPerWindow: Number((answered.length / windows).toFixed(1)),
    ratioOfLimit: Number((answered.length / windows / PER_WINDOW).toFixed(3)),
    failedJobs: await assess.getFailedCount(),
    records: row.records,
    unassessed: row.unassessed,
    decided: row.decided,
    decideJobsCompleted: await decide.getCompletedCount(),
  };
  for (const worker of workers) await stop(worker);
  await producer.close();
  await assess.close();
  await decide.close();
  await clearPrefix(prefix);
  await sim.stop();
  return report;
}

async function unassessedCount(db: Awaited<ReturnType<typeof openDatabase>>): Promise<number> {
  return Number((await db.query(`SELECT count(failure_type)::int AS n FROM judgment_assessments`))[0].n);
}

/**
 * Live Judgments arrive at 40 % of the limit for the whole run; a calibration of 500 cases starts after two windows in
 * the bench process (the bulk lane: half of each window). Reports the live jobs' queue wait and the calibration's pace.
 */
async function calibrationMidway(customers: Customer[]) {
  const sim = new JevSimulator({
    apiKey: API_KEY,
    logRequests: false,
    latencyMs: 50,
    limits: { requests: PER_WINDOW * 2, windowMs: WINDOW_MS },
  });
  await sim.start();
  const prefix = uniquePrefix();
  const limits = { ...LIMITS, requestsPerMinute: LIMITS.requestsPerMinute * 2 };
  const producer = await producerApp(prefix, sim.url!, limits, 60);
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, (_, n) => spawnWorker(prefix, sim.url!, `w${n}`, limits, {})),
  );
  const assess = inspectQueue('judgment-assess', prefix);
  const judge = producer.get(Judge);
  const perSecond = (0.4 * PER_WINDOW * 2) / (WINDOW_MS / 1000);
  const cases = Array.from({ length: CALIBRATION_CASES }, (_, n) =>
    LabelledCase.of(
      new RefundCheck(customers[n % customers.length], `Labelled ${n} [[abusive=0.1]]`),
      RefundOutcome.Approve,
    ),
  );
  let dispatched = 0;
  let calibrationMs = 0;
  let calibrating: Promise<unknown> | null = null;
  const started = Date.now();
  while (!calibrating || calibrationMs === 0) {
    const second = Date.now();
    for (let n = 0; n < perSecond; n++) {
      const customer = customers[dispatched++ % customers.length];
      void judge.dispatch(new RefundCheck(customer, `Live ${dispatched} [[abusive=0.2]]`));
    }
    if (!calibrating && Date.now() - started >= 2 * WINDOW_MS) {
      const from = Date.now();
      calibrating = producer
        .get(Calibration)
        .for(RefundCheck)
        .cases(cases)
        .concurrency(32)
        .run()
        .then(() => (calibrationMs = Date.now() - from));
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - second))));
  }
  await waitForProgress('the live assess jobs', () => assess.getCompletedCount(), dispatched, 60_000);
  const jobs = await assess.getJobs(['completed'], 0, -1);
  const waits = jobs.map((job) => (job.processedOn ?? 0) - job.timestamp).sort((a, b) => a - b);
  const report = {
    liveJudgments: dispatched,
    livePerSecond: perSecond,
    limitPerWindow: PER_WINDOW * 2,
    calibrationCases: CALIBRATION_CASES,
    calibrationMs,
    calibrationPerWindow: Number(((CALIBRATION_CASES / calibrationMs) * WINDOW_MS).toFixed(1)),
    liveQueueWaitMs: { p50: pick(waits, 0.5), p95: pick(waits, 0.95), max: waits[waits.length - 1] },
    refused429: sim.rateLimited,
    windowMs: WINDOW_MS,
  };
  for (const worker of workers) await stop(worker);
  await producer.close();
  await assess.close();
  await clearPrefix(prefix);
  await sim.stop();
  return report;
}

function pick(sorted: number[], quantile: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * quantile))];
}

/** The bench's own app: dispatches (no workers) and runs the calibration. */
function producerApp(prefix: string, url: string, limits: object | undefined, maxWait = 10) {
  return createWorkerContext({
    database: DATABASE,
    prefix,
    simulatorUrl: url,
    queue: { runWorkers: false },
    options: {
      engines: { jev: { driver: 'jev', key: API_KEY, url, model: MODEL, retries: 0, limits } },
      limiter: { prefix: `${prefix}:limits`, maxWait },
      throwOnFailure: false,
    },
  });
}

async function spawnWorker(
  prefix: string,
  url: string,
  name: string,
  limits: object | undefined,
  extra: Record<string, string>,
): Promise<ChildProcess> {
  const worker = spawn(process.execPath, ['-r', './scripts/register.js', 'test/queue/rate-limit-worker.fixture.ts'], {
    cwd: `${__dirname}/..`,
    env: {
      ...process.env,
      JQ_DATABASE: DATABASE,
      JQ_PREFIX: prefix,
      JQ_SIMULATOR_URL: url,
      JQ_CONCURRENCY: String(CONCURRENCY),
      JQ_NAME: name,
      JQ_LIMITS: limits ? JSON.stringify(limits) : '',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('exit', (code) => reject(new Error(`A worker process exited (${code}) before it was ready.`)));
    worker.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
  });
  return worker;
}

async function stop(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null) return;
  const exited = once(worker, 'exit');
  worker.kill('SIGTERM');
  await exited;
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
