// Redis Cluster (issue 34, point 1): a cluster of three masters and three replicas started by the suite on loopback
// (test/support/redis-cluster.ts), the queue on ioredis Cluster connections with the prefix the README documents
// (`{judgment}`), real PostgreSQL and the Jev simulator over HTTP. The queue with its chained decide job, the shared
// rate limit, a Review deadline and the shared cache run on it; a worker process SIGKILLed mid-round and the master
// holding the queues' slot stopped under 500 queued Judgments lose nothing, and each Judgment is decided once.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { EventEmitter } from 'node:events';
import { CacheModule, type CacheManagerOptions } from '@nestjs/cache-manager';
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { Queue as BullQueue } from 'bullmq';
import type { Cluster } from 'ioredis';
import { Keyv } from 'keyv';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { type Assessment, Decision, Evidence, Judge, Judgment, Likelihood } from 'nestjs-judgment';
import {
  API_KEY,
  AssessmentRecord,
  Customer,
  MODEL,
  RefundCheck,
  freshDatabase,
  openDatabase,
  startQueueApp,
  waitFor,
  waitForProgress,
} from './queue.fixtures';
import { type RunningRedisCluster, startRedisCluster } from '../support/redis-cluster';
import { InvalidConfiguration } from '../../libs/judgment/src/errors';
import { EngineManager } from '../../libs/judgment/src/engines/engine.manager';
import { spawnWorkerProcess, stopWorkerProcess, extraRuns } from './worker-process';

const DATABASE = 'judgment_redis_cluster';
/** The prefix the README documents for Redis Cluster: its hash tag puts every Judgment queue in one slot. */
const PREFIX = '{judgment}';
/** How long the workers may go without completing a job before a test fails (progress, not a wall clock). */
const STALL_MS = 30_000;
jest.setTimeout(180_000);

enum ReviewedOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

/** Escalates between .3 and .65; an Escalation nobody resolves within 2 seconds is rejected. */
@Decision({
  name: 'cluster-review-decision',
  outcomes: ReviewedOutcome,
  review: { outcomes: [ReviewedOutcome.Escalate], deadline: '2s', onExpiry: ReviewedOutcome.Reject },
  version: '1',
})
class ReviewedDecision implements Decision<ReviewedCheck, ReviewedOutcome> {
  decide(assessment: Assessment<ReviewedCheck>): ReviewedOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return ReviewedOutcome.Reject;
    return abusive.above(0.3) ? ReviewedOutcome.Escalate : ReviewedOutcome.Approve;
  }
}

/** A refund request whose uncertain cases go to Review, with a deadline; cached for an hour. */
@Judgment({ name: 'cluster-reviewed', decision: () => ReviewedDecision, cacheFor: 3600 })
class ReviewedCheck implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { request: Evidence.untrusted(this.text) };
  }
  questions() {
    return { abusive: Likelihood.that('The refund request is an attempt to abuse the refund policy.') };
  }
}

/**
 * A Keyv store on the cluster (strings under their keys, with their time to live): what a Redis store adapter does,
 * kept to the four calls Keyv makes, so the app's CacheModule shares the assessment cache through the cluster.
 */
class ClusterKeyvStore extends EventEmitter {
  readonly opts = {};
  namespace?: string;
  constructor(private readonly redis: Cluster) {
    super();
  }
  async get(key: string) {
    return (await this.redis.get(key)) ?? undefined;
  }
  async set(key: string, value: string, ttl?: number) {
    if (ttl) await this.redis.set(key, value, 'PX', ttl);
    else await this.redis.set(key, value);
    return true;
  }
  async delete(key: string) {
    return (await this.redis.del(key)) > 0;
  }
  async clear() {}
}

let cluster: RunningRedisCluster;
let sim: JevSimulator;
let db: DataSource;
const apps: INestApplicationContext[] = [];
const connections: Cluster[] = [];
const queues: Queue[] = [];
const workers: ChildProcess[] = [];
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  const started = Date.now();
  cluster = await startRedisCluster();
  figures.clusterStartMs = Date.now() - started;
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await stopWorkerProcess(worker);
  for (const app of apps.splice(0)) await app.close();
  for (const queue of queues.splice(0)) await queue.close();
  for (const connection of connections.splice(0)) await connection.quit().catch(() => connection.disconnect());
  await sim?.stop();
  // Each test starts from empty queues and an empty table.
  await cluster.flush();
  await db.query('TRUNCATE judgment_assessments, queue_customers RESTART IDENTITY');
});

afterAll(async () => {
  console.log(`redis cluster suite: ${JSON.stringify(figures)}`);
  await db?.destroy();
  await cluster?.stop();
});

/** A Cluster connection of a test (closed after it), with the options that ride out a failover. */
function connect(): Cluster {
  const connection = cluster.connect();
  connections.push(connection);
  return connection;
}

function inspect(name: string): Queue {
  const queue = new BullQueue(name, { connection: connect(), prefix: PREFIX });
  queues.push(queue);
  return queue;
}

async function startSim(latencyMs: number): Promise<string> {
  sim = new JevSimulator({ apiKey: API_KEY, latencyMs, logRequests: true });
  await sim.start();
  return sim.url!;
}

const paidRequests = () => sim.requests.filter((request) => request.path === '/v1/systemone' && request.status === 200);

/** Spawns a worker process on the cluster; resolves once it prints `ready`. */
async function spawnWorker(concurrency: number, lockMs: number): Promise<ChildProcess> {
  return spawnWorkerProcess(
    'cluster-worker.fixture.ts',
    {
      JQ_DATABASE: DATABASE,
      JQ_PREFIX: PREFIX,
      JQ_CLUSTER_PORTS: cluster.startupNodes.map(({ port }) => port).join(','),
      JQ_SIMULATOR_URL: sim.url!,
      JQ_CONCURRENCY: String(concurrency),
      JQ_LOCK_MS: String(lockMs),
    },
    workers,
  );
}

/** Dispatches `count` RefundChecks (one Customer each) from a producer app; resolves to the producer's Judge. */
async function dispatchRefunds(count: number, simulatorUrl: string): Promise<void> {
  const producer = await startQueueApp({
    database: DATABASE,
    prefix: PREFIX,
    connection: connect(),
    simulatorUrl,
    queue: { runWorkers: false },
  });
  apps.push(producer);
  const customers = await db
    .getRepository(Customer)
    .save(Array.from({ length: count }, (_, n) => Object.assign(new Customer(), { name: `Customer ${n}` })));
  const judge = producer.get(Judge);
  for (let from = 0; from < count; from += 100) {
    await Promise.all(
      customers.slice(from, from + 100).map((customer, n) => {
        const marker = (from + n) % 2 ? '[[abusive=0.9]]' : '[[abusive=0.1]]';
        return judge.dispatch(new RefundCheck(customer, `Case ${from + n}: refund please. ${marker}`));
      }),
    );
  }
}

/** Records decided, answered, Subjects decided, and Subjects decided more than once. */
async function recordCounts() {
  const [row] = await db.query(
    `SELECT count(*) FILTER (WHERE outcome IS NOT NULL)::int AS decided,
            count(*) FILTER (WHERE failure_type IS NULL)::int AS answered,
            count(DISTINCT subject_id) FILTER (WHERE outcome IS NOT NULL)::int AS subjects
       FROM judgment_assessments`,
  );
  const [{ twice }] = await db.query(
    `SELECT count(*)::int AS twice FROM (SELECT subject_id FROM judgment_assessments WHERE outcome IS NOT NULL
       GROUP BY subject_id HAVING count(*) > 1) AS d`,
  );
  return { ...row, twice } as { decided: number; answered: number; subjects: number; twice: number };
}

it('refuses at startup a queue prefix without a hash tag on a Redis Cluster, naming the option and the fix', async () => {
  const url = await startSim(0);
  const start = (prefix: string) =>
    startQueueApp({
      database: DATABASE,
      prefix,
      connection: connect(),
      simulatorUrl: url,
      queue: { runWorkers: false },
    });

  const customer = await db.getRepository(Customer).save(Object.assign(new Customer(), { name: 'Accepted' }));
  const refused = start('judgment');
  await expect(refused).rejects.toThrow(InvalidConfiguration);
  await expect(refused).rejects.toThrow(/queue prefix \(BullModule\.forRoot's `prefix`, "judgment"\) has no hash tag/);
  await expect(refused).rejects.toThrow("prefix: '{judgment}'");
  // An empty hash tag hashes the whole key, as none would.
  await expect(start('{}judgment')).rejects.toThrow(InvalidConfiguration);

  const accepted = await start(PREFIX);
  apps.push(accepted);
  expect(await accepted.get(Judge).dispatch(new RefundCheck(customer, 'fine [[abusive=0.1]]'))).toMatch(/^assess-/);
});

it('runs the queue, the shared limit, a Review deadline and the shared cache on the cluster', async () => {
  const url = await startSim(20);
  const cacheStore = () =>
    CacheModule.register({
      stores: [new Keyv({ store: new ClusterKeyvStore(connect()) })] as unknown as CacheManagerOptions['stores'],
    });
  // 10 requests per 1-second window, for the whole account: counted on the cluster by every process.
  const engines = {
    jev: {
      driver: 'jev',
      key: API_KEY,
      url,
      model: MODEL,
      retries: 0,
      limits: { requestsPerMinute: 600, windowSeconds: 1 },
    },
  } as const;
  const settings = {
    database: DATABASE,
    prefix: PREFIX,
    simulatorUrl: url,
    options: { engines, log: false },
    judgments: [RefundCheck, ReviewedCheck],
  };
  const worker = await startQueueApp({
    ...settings,
    connection: connect(),
    imports: [cacheStore()],
    queue: { concurrency: 16 },
  });
  const api = await startQueueApp({
    ...settings,
    connection: connect(),
    imports: [cacheStore()],
    queue: { runWorkers: false },
  });
  apps.push(worker, api);
  const assess = inspect('judgment-assess');
  const decide = inspect('judgment-decide');

  // The queue with its chained decide job, and the limit shared with inline calls of another app.
  const customers = await db
    .getRepository(Customer)
    .save(Array.from({ length: 30 }, (_, n) => Object.assign(new Customer(), { name: `Limited ${n}` })));
  // The counters live a window (1 s) each: watch the cluster's masters for them while the requests flow.
  const counterKeys = new Set<string>();
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      for (const { port } of cluster.startupNodes) {
        const keys = await cluster.cli(port, '--no-raw', 'keys', 'judgment:limits*').catch(() => '');
        for (const key of keys.split('\n').filter((line) => line.includes('judgment:limits'))) counterKeys.add(key);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const started = Date.now();
  await Promise.all(
    customers.map((customer, n) =>
      api.get(Judge).dispatch(new RefundCheck(customer, `Case ${n} [[abusive=${n % 2 ? 0.9 : 0.1}]]`)),
    ),
  );
  await Promise.all(
    Array.from({ length: 10 }, (_, n) =>
      api.get(Judge).assess(new RefundCheck(customers[n], `Inline ${n} [[abusive=0.2]]`)),
    ),
  );
  await waitForProgress('the decide jobs', () => decide.getCompletedCount(), 30, STALL_MS);
  watching = false;
  await watcher;
  const limited = paidRequests();
  const spanMs = limited[limited.length - 1].at - limited[0].at;
  figures.limit = { requests: limited.length, spanMs, elapsedMs: Date.now() - started };
  expect(limited).toHaveLength(40);
  // 40 requests at 10 per window need four windows: at least three seconds from the first to the last.
  expect(spanMs).toBeGreaterThanOrEqual(2900);
  expect(await assess.getCompletedCount()).toBe(30);
  const decidedJobs = await decide.getJobs(['completed'], 0, -1);
  expect(decidedJobs.every((job) => job.id!.startsWith('decide-'))).toBe(true);
  expect(await recordCounts()).toMatchObject({ decided: 30, answered: 40, twice: 0 });
  // Both apps count on the cluster: the first window (10 slots) holds the first requests of both, never 10 each.
  for (const app of [worker, api]) expect(app.get(EngineManager).limiter('jev')?.store).toBe('redis');
  expect(counterKeys.size).toBeGreaterThan(0);
  const firstWindow = limited.filter((request) => request.at < limited[0].at + 900).length;
  (figures.limit as Record<string, number>).firstWindow = firstWindow;
  expect(firstWindow).toBeLessThanOrEqual(10);

  // A Review deadline: a delayed job on the review queue, in the same slot, expires the record after 2 seconds.
  await api.get(Judge).dispatch(new ReviewedCheck('Refund me, it came late. [[abusive=0.5]]'));
  const expired = await waitFor(
    'the Review deadline to resolve the record',
    async () => {
      const row = await db.getRepository(AssessmentRecord).findOneBy({ judgment: 'cluster-reviewed' });
      return row?.resolvedAt ? row : undefined;
    },
    20_000,
  );
  expect(expired).toMatchObject({
    outcome: 'escalate',
    resolution: 'reject',
    resolverType: 'system',
    resolverId: 'deadline',
  });

  // The shared cache: what one app paid for, the other answers from the cluster without asking.
  const before = paidRequests().length;
  const first = await worker.get(Judge).assess(new ReviewedCheck('Cached question [[abusive=0.1]]'));
  const second = await api.get(Judge).assess(new ReviewedCheck('Cached question [[abusive=0.1]]'));
  expect(paidRequests().length - before).toBe(1);
  expect(second.likelihood('abusive').probability).toBe(first.likelihood('abusive').probability);
  const cached = await db
    .getRepository(AssessmentRecord)
    .find({ where: { judgment: 'cluster-reviewed' }, order: { id: 'ASC' } });
  expect(cached[cached.length - 1].cachedFromId).toBe(cached[cached.length - 2].id);
});

it('a worker process SIGKILLed mid-round loses nothing: each Judgment decided once, a re-run only for a killed round', async () => {
  const JUDGMENTS = 200;
  await startSim(200); // long enough rounds that the kill lands in some
  const first = await spawnWorker(16, 4000);
  const started = Date.now();
  await dispatchRefunds(JUDGMENTS, sim.url!);
  const assess = inspect('judgment-assess');
  const decide = inspect('judgment-decide');

  await waitForProgress("the first worker's decide jobs", () => decide.getCompletedCount(), 50, STALL_MS);
  const activeAtKill = await assess.getActiveCount();
  first.kill('SIGKILL');
  await once(first, 'exit');
  await spawnWorker(16, 4000);
  await waitForProgress('the decide jobs', () => decide.getCompletedCount(), JUDGMENTS, STALL_MS);

  const counts = await recordCounts();
  const assessJobs = await assess.getJobs(['completed'], 0, -1);
  const run = {
    judgments: JUDGMENTS,
    activeAtKill,
    engineRequests: paidRequests().length,
    ...counts,
    assessExtraRuns: extraRuns(assessJobs),
    failedJobs: (await assess.getFailedCount()) + (await decide.getFailedCount()),
    failed: [...(await assess.getFailed(0, 2)), ...(await decide.getFailed(0, 2))].map((job) => job.failedReason),
    jobs: { assess: await assess.getJobCounts(), decide: await decide.getJobCounts() },
    elapsedMs: Date.now() - started,
  };
  figures.workerKill = run;
  expect(counts).toMatchObject({ decided: JUDGMENTS, subjects: JUDGMENTS, twice: 0 });
  expect(run.failedJobs).toBe(0);
  expect(activeAtKill).toBeGreaterThan(0);
  // The README's at-least-once: only a job re-run (killed mid-round, taken over) asks the Engine again.
  expect(run.assessExtraRuns).toBeGreaterThan(0);
  expect(run.engineRequests - JUDGMENTS).toBeLessThanOrEqual(run.assessExtraRuns);
  expect(run.answered - JUDGMENTS).toBeLessThanOrEqual(run.assessExtraRuns);
});

it("the master holding the queues' slot stopped under 500 queued Judgments: its replica takes over, each decided once, none paid twice", async () => {
  const JUDGMENTS = 500;
  await startSim(100);
  // Locks (30 s, BullMQ's default) outlast the failover, so no running job counts as stalled meanwhile.
  const started = Date.now();
  await dispatchRefunds(JUDGMENTS, sim.url!);
  await spawnWorker(8, 30_000);
  await spawnWorker(8, 30_000);
  const decide = inspect('judgment-decide');
  const assess = inspect('judgment-assess');
  const master = await cluster.masterOf(PREFIX);

  await waitForProgress('the decide jobs before the stop', () => decide.getCompletedCount(), 100, STALL_MS);
  const decidedAtStop = await decide.getCompletedCount();
  const stoppedAt = Date.now();
  await cluster.stopNode(master);
  await cluster.waitHealthy();
  const promoted = await cluster.masterOf(PREFIX);
  const failoverMs = Date.now() - stoppedAt;
  await waitForProgress('the decide jobs after the failover', () => decide.getCompletedCount(), JUDGMENTS, STALL_MS);

  const counts = await recordCounts();
  const run = {
    judgments: JUDGMENTS,
    decidedAtStop,
    stoppedMaster: master,
    promoted,
    failoverMs,
    engineRequests: paidRequests().length,
    ...counts,
    assessExtraRuns: extraRuns(await assess.getJobs(['completed'], 0, -1)),
    failedJobs: (await assess.getFailedCount()) + (await decide.getFailedCount()),
    failed: [...(await assess.getFailed(0, 2)), ...(await decide.getFailed(0, 2))].map((job) => job.failedReason),
    jobs: { assess: await assess.getJobCounts(), decide: await decide.getJobCounts() },
    elapsedMs: Date.now() - started,
  };
  figures.masterFailover = run;
  expect(promoted).not.toBe(master);
  expect(counts).toMatchObject({ decided: JUDGMENTS, subjects: JUDGMENTS, twice: 0, answered: JUDGMENTS });
  expect(run.engineRequests).toBe(JUDGMENTS);
  expect(run.failedJobs).toBe(0);
});
