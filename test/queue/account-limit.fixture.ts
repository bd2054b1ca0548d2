// One run of "the account's limit without 429s" (issue 34, point 4), shared by test/queue/account-limit.e2e-spec.ts
// and bench/account-limit.bench.ts: a token-bucket proxy (the account) in front of the Jev simulator, worker
// processes on one Redis, and Judgments offered at a multiple of the limit for a while; then every Judgment is waited
// for. Reports the forwarded rate as a share of the limit, the 429s after the first second, and what was lost.
import type { ChildProcess } from 'node:child_process';
import { Judge } from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import {
  API_KEY,
  Customer,
  MODEL,
  RefundCheck,
  createWorkerContext,
  inspectQueue,
  openDatabase,
  uniquePrefix,
  waitForProgress,
} from './queue.fixtures';
import { TokenBucketProxy } from './token-bucket.proxy';
import { clearPrefix } from '../support/redis';
import { spawnWorkerProcess, stopWorkerProcess } from './worker-process';

export interface AccountLimitRun {
  /** The database (created by the caller, with the package's and the fixtures' tables). */
  readonly database: string;
  /** The account: its bucket refills at `perMinute` and holds `burst`. */
  readonly perMinute: number;
  readonly burst: number;
  /** The connection's `limits` (what the library is told). */
  readonly limits: object;
  /** Offered load as a multiple of the limit, and for how long. */
  readonly offered: number;
  readonly offerSeconds: number;
  readonly workers: number;
  readonly concurrency: number;
}

export interface AccountLimitReport {
  readonly judgments: number;
  readonly forwarded: number;
  readonly refused429: number;
  readonly refused429AfterFirstSecond: number;
  /** Seconds from the first request the account saw to the last one it forwarded. */
  readonly seconds: number;
  /** Forwarded per second ÷ the limit per second. */
  readonly ratio: number;
  /** The same without the bucket's first `burst` requests (what the account sustains, not what it had saved). */
  readonly sustainedRatio: number;
  readonly decided: number;
  readonly failedJobs: number;
  /** Judgments offered that were not decided. */
  readonly lost: number;
  readonly elapsedMs: number;
  /** Forwarded requests in each 10 seconds from the first request (where a run slowed down). */
  readonly forwardedPer10s: number[];
}

export async function runAccountLimit(run: AccountLimitRun): Promise<AccountLimitReport> {
  const db = await openDatabase(run.database);
  await db.query('DELETE FROM judgment_assessments');
  const perSecond = run.perMinute / 60;
  const judgments = Math.round(perSecond * run.offered * run.offerSeconds);
  const customers = await db
    .getRepository(Customer)
    .save(Array.from({ length: judgments }, (_, n) => Object.assign(new Customer(), { name: `A${n}` })));
  const sim = new JevSimulator({ apiKey: API_KEY, logRequests: false, latencyMs: 50 });
  await sim.start();
  const proxy = new TokenBucketProxy(sim.url!, run.perMinute, run.burst);
  await proxy.start();
  const prefix = uniquePrefix();
  const producer = await createWorkerContext({
    database: run.database,
    prefix,
    simulatorUrl: proxy.url,
    queue: { runWorkers: false },
    options: {
      engines: { jev: { driver: 'jev', key: API_KEY, url: proxy.url, model: MODEL, retries: 0, limits: run.limits } },
      limiter: { prefix: `${prefix}:limits` },
      throwOnFailure: false,
    },
  });
  const workers: ChildProcess[] = [];
  const assess = inspectQueue('judgment-assess', prefix);
  try {
    for (let n = 0; n < run.workers; n++) await spawnWorker(run, prefix, proxy.url, `w${n}`, workers);
    const judge = producer.get(Judge);
    const started = Date.now();
    // Offered in steps of 100 ms, at `offered` times the limit.
    const perStep = judgments / (run.offerSeconds * 10);
    for (let step = 0, sent = 0; sent < judgments; step++) {
      const due = Math.min(judgments, Math.round((step + 1) * perStep));
      const batch = customers.slice(sent, due);
      sent = due;
      await Promise.all(batch.map((c) => judge.dispatch(new RefundCheck(c, `Case ${c.id} [[abusive=0.2]]`))));
      const wait = started + (step + 1) * 100 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const finished = async () => (await assess.getCompletedCount()) + (await assess.getFailedCount());
    await waitForProgress('the assess jobs', finished, judgments, 30_000);
    const decided = async () =>
      Number((await db.query(`SELECT count(outcome)::int AS n FROM judgment_assessments`))[0].n);
    const failedJobs = await assess.getFailedCount();
    await waitForProgress('the decisions', decided, judgments - failedJobs, 30_000);
    const elapsedMs = Date.now() - started;
    const forwarded = proxy.forwarded.filter((seen) => seen.status === 200);
    const first = Math.min(...proxy.seen.map((seen) => seen.at));
    const seconds = (Math.max(...forwarded.map((seen) => seen.at)) - first) / 1000;
    const rate = (count: number) => Number((count / seconds / perSecond).toFixed(3));
    const [row] = await db.query(
      `SELECT count(outcome)::int AS decided, count(DISTINCT evidence_fingerprint)::int AS judgments
         FROM judgment_assessments`,
    );
    return {
      judgments,
      forwarded: forwarded.length,
      refused429: proxy.refusedSince(0),
      refused429AfterFirstSecond: proxy.refusedSince(first + 1000),
      seconds: Number(seconds.toFixed(2)),
      ratio: rate(forwarded.length),
      sustainedRatio: rate(forwarded.length - run.burst),
      decided: row.decided,
      failedJobs,
      lost: judgments - row.decided,
      elapsedMs,
      forwardedPer10s: forwarded.reduce<number[]>((counts, seen) => {
        const slot = Math.floor((seen.at - first) / 10_000);
        for (let n = counts.length; n <= slot; n++) counts.push(0);
        counts[slot]++;
        return counts;
      }, []),
    };
  } finally {
    for (const worker of workers) await stopWorkerProcess(worker);
    await producer.close();
    await assess.close();
    await clearPrefix(prefix);
    await proxy.stop();
    await sim.stop();
    await db.destroy();
  }
}

function spawnWorker(
  run: AccountLimitRun,
  prefix: string,
  url: string,
  name: string,
  into: ChildProcess[],
): Promise<ChildProcess> {
  return spawnWorkerProcess(
    'rate-limit-worker.fixture.ts',
    {
      JQ_DATABASE: run.database,
      JQ_PREFIX: prefix,
      JQ_SIMULATOR_URL: url,
      JQ_CONCURRENCY: String(run.concurrency),
      JQ_NAME: name,
      JQ_LIMITS: JSON.stringify(run.limits),
    },
    into,
  );
}
