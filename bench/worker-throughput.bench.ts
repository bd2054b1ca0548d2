// Queued throughput with 1, 2 and 4 worker processes (issue 34, point 5): the same total concurrency split across
// them, against the Jev simulator in its own process (Engine latency 200 ms), through a connection whose limit is far
// above what the run asks (the shared counters and the queue's global rate limit work, but never bind). Each queued
// judgment is the assess job (the Engine round, the record) and its chained decide job (the Outcome written); the
// Judgments are dispatched by this process (no workers of its own) with the hash-tagged prefix the README documents
// for Redis Cluster. Six setups, on one Redis (JUDGMENT_TEST_REDIS_PORT) and on a Redis Cluster of three masters and
// three replicas this bench starts on loopback (BENCH_CLUSTER_PORTS: its six ports, else free ones) and stops.
// Beside each queued run, the same number of bare HTTP requests of the same body go straight to the simulator with the
// same number in flight, once before and once after it. Two ratios, the issue's goal being ≥ 0.9 (bare HTTP: the mean
// of its two runs):
// - ratio: queued judgments/s over the whole run (a backlog dispatched at once on idle workers, to its last
//   decision) ÷ bare HTTP requests/s;
// - sustained ratio: the rate at which jobs (requests) start from 3 s into each run to its last start, while every slot
//   is busy, queued ÷ bare HTTP: the run's first seconds and its drain left out of both.
// Where the time goes, per setup: Redis commands per judgment (INFO commandstats of the masters), the worker processes'
// CPU time per judgment, how long an assess and a decide job held a worker's slot (p50, and the assess job's mean in
// the first 3 s and after), the workers' event-loop delay (how long their work waited to run), and how busy the
// machine's cores were. Every Judgment must end with one decided record. Prints the load average (`uptime`) before and
// after. BW_DECIDE_CONCURRENCY sets the workers' queue.decideConcurrency (default: the library's).
//   node -r ./scripts/register.js bench/worker-throughput.bench.ts [judgments=1600] [concurrency=32]
import { type ChildProcess, execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { INestApplicationContext } from '@nestjs/common';
import { Queue } from 'bullmq';
import IORedis, { type Cluster } from 'ioredis';
import { Judge } from 'nestjs-judgment';
import type { DataSource } from 'typeorm';
import { describeAttempt } from '../libs/judgment/src/judge/attempt';
import { requestBody } from '../libs/judgment/src/engines/jev/jev.wire';
import {
  API_KEY,
  Customer,
  MODEL,
  RefundCheck,
  createWorkerContext,
  freshDatabase,
  openDatabase,
} from '../test/queue/queue.fixtures';
import { spawnWorkerProcess, stopWorkerProcess } from '../test/queue/worker-process';
import { REDIS, clearPrefix } from '../test/support/redis';
import { type RunningRedisCluster, startRedisCluster } from '../test/support/redis-cluster';
import { barePostRun, median, processCpuMs, startSimulator, sustainedPerSecond } from './support/bench';

const JUDGMENTS = Number(process.argv[2] ?? 1600);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const WORKER_COUNTS = [1, 2, 4];
const LATENCY_MS = 200;
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 2 * CONCURRENCY);
const DATABASE = 'judgment_bench_worker_throughput';
/** Far above what the run can ask (CONCURRENCY / 200 ms is 160 requests a second at 32): counted, never binding. */
const LIMITS = { requestsPerMinute: 1_000_000 };
const GOAL = 0.9;
/**
 * The sustained ratio leaves out each run's first 3 s: a backlog dispatched at once starts every slot together, so
 * the first waves' answers come back together and their records and decide jobs queue for the same CPU
 * until the slots drift apart (measured: the assess job's mean 243-309 ms over the first 3 s against 213-249 ms after,
 * and as slow after a warm-up of 800 judgments).
 */
const SETTLE_MS = 3000;
/** BENCH_ONLY=redis:1,cluster:4 runs just those setups (to profile one). */
const ONLY = process.env.BENCH_ONLY?.split(',');

type Target = 'one Redis' | 'Redis Cluster';

interface Setup {
  readonly target: Target;
  readonly workers: number;
  readonly cluster?: RunningRedisCluster;
}

interface Row {
  setup: string;
  'bare HTTP req/s': number;
  'queued judgments/s': number;
  /** Of the queued run, how long this process took to dispatch them all. */
  'dispatch s': number;
  /** Queued judgments/s over the whole run (from the dispatch of a backlog on idle workers to its last decision). */
  ratio: number;
  /** The same from SETTLE_MS after the dispatch to the last assess job's start, while every slot was busy. */
  'sustained ratio': number;
  'Redis commands / judgment': number;
  'worker CPU ms / judgment': number;
  /**
   * How long each job of the measured run held a worker's slot (processedOn to finishedOn), p50: the assess job's
   * includes the 200 ms. Throughput is the concurrency over the assess slot's mean.
   */
  'assess job ms p50': number;
  /** Of the assess jobs started in the run's first SETTLE_MS, and of those started after. */
  'assess job ms mean (first 3 s / after)': string;
  'decide job ms p50': number;
  /** The worker processes' event loop delay over the queued run (the largest of them): time their work waited to run. */
  'worker event-loop delay p50/p99 ms': string;
  /** Of the machine's CPU time during the queued run (/proc/stat), the share not idle: 1 is every core busy. */
  'machine CPU busy': number;
  'load (1 min)': number;
}

function uptime(): string {
  return execSync('uptime').toString().trim();
}

function loadAverage(): number {
  return Number(/load average: ([\d.]+)/.exec(uptime())?.[1]);
}

async function main(): Promise<void> {
  if (CONCURRENCY % Math.max(...WORKER_COUNTS) !== 0) {
    throw new Error(`The concurrency (${CONCURRENCY}) must split evenly across ${WORKER_COUNTS.join(', ')} workers.`);
  }
  console.log(`before: ${uptime()}`);
  await freshDatabase(DATABASE);
  const db = await openDatabase(DATABASE);
  const simulator = await startSimulator(LATENCY_MS, API_KEY);
  const setups = (['one Redis', 'Redis Cluster'] as const)
    .flatMap((target) => WORKER_COUNTS.map((workers) => ({ target, workers })))
    .filter(
      ({ target, workers }) => !ONLY || ONLY.includes(`${target === 'one Redis' ? 'redis' : 'cluster'}:${workers}`),
    );
  const ports = process.env.BENCH_CLUSTER_PORTS?.split(',').map(Number);
  const cluster = setups.some(({ target }) => target === 'Redis Cluster')
    ? await startRedisCluster(ports ? { ports } : {})
    : undefined;
  const rows: Row[] = [];
  try {
    for (const { target, workers } of setups) {
      const row = await run({ target, workers, ...(target === 'Redis Cluster' ? { cluster } : {}) }, db, simulator.url);
      console.log(JSON.stringify(row));
      rows.push(row);
    }
  } finally {
    await cluster?.stop();
    simulator.stop();
    await db.destroy();
  }
  console.log(
    `\n${JUDGMENTS} judgments a run (after ${WARM_UP} to warm up), total concurrency ${CONCURRENCY} split across the ` +
      `worker processes, Engine latency ${LATENCY_MS} ms (ideal ${CONCURRENCY / (LATENCY_MS / 1000)}/s), limits ` +
      `${JSON.stringify(LIMITS)}; bare HTTP: ${JUDGMENTS} POSTs, ${CONCURRENCY} in flight, before and after each run`,
  );
  console.table(rows);
  for (const column of ['ratio', 'sustained ratio'] as const) {
    const below = rows.filter((row) => row[column] < GOAL);
    console.log(
      below.length === 0
        ? `every ${column} ≥ ${GOAL}`
        : `${column} below ${GOAL}: ${below.map((row) => `${row.setup} (${row[column]})`).join('; ')}`,
    );
  }
  console.log(`after: ${uptime()}`);
}

/** One setup: its worker processes and a dispatching app, a warm-up, then bare HTTP, the queued run, bare HTTP. */
async function run(setup: Setup, db: DataSource, simulatorUrl: string): Promise<Row> {
  await db.query('TRUNCATE judgment_assessments, queue_customers');
  const id = Math.random().toString(36).slice(2, 10);
  // The README's hash-tagged prefix, made unique so no run meets another's keys.
  const prefix = `{judgment-${id}}`;
  const limiterPrefix = `bench-limits-${id}`;
  const clusterPorts = setup.cluster?.startupNodes.map((node) => node.port).join(',');
  const workers: ChildProcess[] = [];
  const connection: Cluster | undefined = setup.cluster?.connect();
  let producer: INestApplicationContext | undefined;
  try {
    const env = {
      BW_DATABASE: DATABASE,
      BW_PREFIX: prefix,
      BW_LIMITER_PREFIX: limiterPrefix,
      BW_SIMULATOR_URL: simulatorUrl,
      BW_CONCURRENCY: String(CONCURRENCY / setup.workers),
      BW_LIMITS: JSON.stringify(LIMITS),
      ...(clusterPorts ? { BW_CLUSTER_PORTS: clusterPorts } : {}),
    };
    for (let n = 0; n < setup.workers; n++) await startWorker(env, workers);
    producer = await createWorkerContext({
      database: DATABASE,
      prefix,
      connection,
      simulatorUrl,
      queue: { runWorkers: false },
      options: {
        engines: { jev: { driver: 'jev', key: API_KEY, url: simulatorUrl, model: MODEL, retries: 0, limits: LIMITS } },
        limiter: { prefix: limiterPrefix },
      },
    });
    const judge = producer.get(Judge);
    const customers = await db
      .getRepository(Customer)
      .save(Array.from({ length: WARM_UP + JUDGMENTS }, (_, n) => Object.assign(new Customer(), { name: `C${n}` })));
    const judgments = customers.map((customer) => new RefundCheck(customer, `Case ${customer.id}.`));
    const decided = async () =>
      Number((await db.query('SELECT count(outcome)::int AS n FROM judgment_assessments'))[0].n);
    const dispatchAll = async (batch: RefundCheck[], target: number) => {
      const started = performance.now();
      await Promise.all(batch.map((judgment) => judge.dispatch(judgment)));
      const dispatched = performance.now();
      while ((await decided()) < target) await new Promise((resolve) => setTimeout(resolve, 50));
      return { seconds: (performance.now() - started) / 1000, dispatchSeconds: (dispatched - started) / 1000 };
    };
    await dispatchAll(judgments.slice(0, WARM_UP), WARM_UP);

    const attempt = describeAttempt(judgments[0]);
    const body = requestBody(MODEL, attempt.evidence.shown, attempt.expanded);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
    const bare = () => barePostRun(`${simulatorUrl}/v1/systemone`, body, headers, JUDGMENTS, CONCURRENCY);
    const bareBefore = await bare();
    const load = loadAverage();
    const commands0 = await redisCommands(setup);
    const cpu0 = workers.reduce((sum, worker) => sum + processCpuMs(worker.pid!), 0);
    await Promise.all(workers.map(eventLoopDelay)); // starts the count anew
    const machine0 = machineCpu();
    const runStart = Date.now();
    const { seconds, dispatchSeconds } = await dispatchAll(judgments.slice(WARM_UP), WARM_UP + JUDGMENTS);
    const machine1 = machineCpu();
    const cpu = workers.reduce((sum, worker) => sum + processCpuMs(worker.pid!), 0) - cpu0;
    const delays = await Promise.all(workers.map(eventLoopDelay));
    const commands = (await redisCommands(setup)) - commands0;
    // Each job of the measured run: when it took a worker's slot, and for how long.
    const [assessJobs, decideJobs] = await Promise.all(
      ['judgment-assess', 'judgment-decide'].map(async (name) => {
        const queue = new Queue(name, { connection: connection ?? REDIS, prefix });
        try {
          const jobs = await queue.getJobs(['completed'], 0, JUDGMENTS + WARM_UP);
          return jobs
            .filter((job) => (job.processedOn ?? 0) >= runStart)
            .map((job) => ({ start: job.processedOn!, slot: (job.finishedOn ?? 0) - job.processedOn! }));
        } finally {
          await queue.close();
        }
      }),
    );
    const [{ records, decisions }] = await db.query(
      'SELECT count(*)::int AS records, count(outcome)::int AS decisions FROM judgment_assessments',
    );
    if (records !== WARM_UP + JUDGMENTS || decisions !== records) {
      throw new Error(`${WARM_UP + JUDGMENTS} Judgments left ${records} records, ${decisions} decided.`);
    }
    const bareAfter = await bare();
    const bareHttp = (bareBefore.perSecond + bareAfter.perSecond) / 2;
    const bareSustained = (sustained(bareBefore) + sustained(bareAfter)) / 2;
    const queued = JUDGMENTS / seconds;
    const queuedSustained = sustained({ began: runStart, starts: assessJobs.map((job) => job.start) });
    const meanSlot = (jobs: { slot: number }[]) =>
      (jobs.reduce((sum, job) => sum + job.slot, 0) / jobs.length).toFixed(1);
    const settled = runStart + SETTLE_MS;
    return {
      setup: `${setup.target}, ${setup.workers} worker${setup.workers > 1 ? 's' : ''} × ${CONCURRENCY / setup.workers}`,
      'bare HTTP req/s': Number(bareHttp.toFixed(1)),
      'queued judgments/s': Number(queued.toFixed(1)),
      'dispatch s': Number(dispatchSeconds.toFixed(2)),
      ratio: Number((queued / bareHttp).toFixed(3)),
      'sustained ratio': Number((queuedSustained / bareSustained).toFixed(3)),
      'Redis commands / judgment': Number((commands / JUDGMENTS).toFixed(1)),
      'worker CPU ms / judgment': Number((cpu / JUDGMENTS).toFixed(2)),
      'assess job ms p50': median(assessJobs.map((job) => job.slot)),
      'assess job ms mean (first 3 s / after)': `${meanSlot(assessJobs.filter((job) => job.start < settled))} / ${meanSlot(
        assessJobs.filter((job) => job.start >= settled),
      )}`,
      'decide job ms p50': median(decideJobs.map((job) => job.slot)),
      'worker event-loop delay p50/p99 ms': `${Math.max(...delays.map((d) => d.p50)).toFixed(1)} / ${Math.max(
        ...delays.map((d) => d.p99),
      ).toFixed(1)}`,
      'machine CPU busy': Number((1 - (machine1.idle - machine0.idle) / (machine1.total - machine0.total)).toFixed(2)),
      'load (1 min)': load,
    };
  } finally {
    for (const worker of workers) await stopWorkerProcess(worker);
    await producer?.close();
    await connection?.quit();
    if (setup.cluster) await setup.cluster.flush();
    else await clearPrefix(prefix);
  }
}

/** The sustained rate of a run (sustainedPerSecond): from SETTLE_MS after it began to its last start. */
function sustained(run: { began: number; starts: number[] }): number {
  return sustainedPerSecond(run.starts, run.began, SETTLE_MS);
}

/** The machine's CPU time so far, all cores (/proc/stat, in clock ticks): idle (with I/O wait) and in total. */
function machineCpu(): { idle: number; total: number } {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { idle: ticks[3] + ticks[4], total: ticks.reduce((sum, n) => sum + n, 0) };
}

/** Commands the Redis masters have run so far (INFO commandstats, its own INFO calls left out). */
async function redisCommands(setup: Setup): Promise<number> {
  const count = (info: string) =>
    [...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)]
      .filter(([, name]) => name !== 'info')
      .reduce((sum, [, , calls]) => sum + Number(calls), 0);
  if (!setup.cluster) {
    const redis = new IORedis(REDIS);
    try {
      return count(await redis.info('commandstats'));
    } finally {
      redis.disconnect();
    }
  }
  let total = 0;
  for (const { port } of setup.cluster.startupNodes) {
    if ((await setup.cluster.cli(port, 'role')).startsWith('master')) {
      total += count(await setup.cluster.cli(port, 'info', 'commandstats'));
    }
  }
  return total;
}

/** One worker process; BENCH_WORKER_NODE_ARGS gives its node flags (`--cpu-prof --cpu-prof-dir=…` to profile it). */
function startWorker(env: Record<string, string>, into: ChildProcess[]): Promise<ChildProcess> {
  const flags = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return spawnWorkerProcess('throughput-worker.fixture.ts', env, into, flags);
}

/** A worker process's event-loop delay since it was last asked (SIGUSR2; it answers `delay <p50> <p99>`). */
async function eventLoopDelay(worker: ChildProcess): Promise<{ p50: number; p99: number }> {
  const answer = new Promise<{ p50: number; p99: number }>((resolve) => {
    const read = (chunk: Buffer) => {
      const match = /delay ([\d.]+) ([\d.]+)/.exec(chunk.toString());
      if (!match) return;
      worker.stdout!.off('data', read);
      resolve({ p50: Number(match[1]), p99: Number(match[2]) });
    };
    worker.stdout!.on('data', read);
  });
  worker.kill('SIGUSR2');
  return answer;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
