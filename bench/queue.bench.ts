// Queued throughput: judgments per second through the assess job (one Engine round, the record) and the chained
// decide job (rebuild from the record, the Outcome written), against the ideal of concurrency / Engine latency.
// Real Redis and PostgreSQL; the Jev simulator runs in its own process (a remote Engine, as in production), so it
// does not compete with the workers for their event loop.
//   node -r ./scripts/register.js bench/queue.bench.ts [judgments]
import { spawn } from 'node:child_process';
import { Judge } from 'nestjs-judgment';
import {
  API_KEY,
  Customer,
  RefundCheck,
  createWorkerContext,
  freshDatabase,
  inspectQueue,
  openDatabase,
  uniquePrefix,
  waitFor,
} from '../test/queue/queue.fixtures';

const DATABASE = 'judgment_bench_queue';
const LATENCY_MS = 200;
const CONCURRENCY = 32;
const WARM_UP = 64;
const JUDGMENTS = Number(process.argv[2] ?? 1600);

async function main() {
  await freshDatabase(DATABASE);
  const db = await openDatabase(DATABASE);
  const simulator = await startSimulator();
  const prefix = uniquePrefix();
  const app = await createWorkerContext({
    database: DATABASE,
    prefix,
    simulatorUrl: simulator.url,
    queue: { concurrency: CONCURRENCY },
  });
  const judge = app.get(Judge);
  const decide = inspectQueue('judgment-decide', prefix);
  const customers = await db
    .getRepository(Customer)
    .save(Array.from({ length: WARM_UP + JUDGMENTS }, (_, n) => Object.assign(new Customer(), { name: `C${n}` })));
  const run = async (batch: Customer[], done: number) => {
    const started = performance.now();
    await Promise.all(batch.map((customer) => judge.dispatch(new RefundCheck(customer, `Case ${customer.id}.`))));
    const dispatched = performance.now();
    await waitFor('the decide jobs', async () => (await decide.getCompletedCount()) >= done + batch.length, 600_000);
    return { dispatchMs: dispatched - started, totalMs: performance.now() - started };
  };

  await run(customers.slice(0, WARM_UP), 0);
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const { dispatchMs, totalMs } = await run(customers.slice(WARM_UP), WARM_UP);
  const cpu = process.cpuUsage(cpu0);
  const busy = performance.eventLoopUtilization(elu0).utilization;

  const [{ answered, decided }] = await db.query(
    `SELECT count(*)::int AS answered, count(*) FILTER (WHERE outcome IS NOT NULL)::int AS decided
       FROM judgment_assessments`,
  );
  const perSecond = JUDGMENTS / (totalMs / 1000);
  const ideal = CONCURRENCY / (LATENCY_MS / 1000);
  console.log(
    JSON.stringify(
      {
        judgments: JUDGMENTS,
        engineLatencyMs: LATENCY_MS,
        workerConcurrency: CONCURRENCY,
        dispatchMs: Math.round(dispatchMs),
        totalMs: Math.round(totalMs),
        judgmentsPerSecond: Number(perSecond.toFixed(1)),
        idealPerSecond: ideal,
        ratio: Number((perSecond / ideal).toFixed(3)),
        // Near 1: this process is CPU-bound (dispatch, both workers and their TypeORM/BullMQ work share one thread).
        eventLoopUtilisation: Number(busy.toFixed(2)),
        cpuMsPerJudgment: Number(((cpu.user + cpu.system) / 1000 / JUDGMENTS).toFixed(2)),
        answeredRecords: answered,
        decidedRecords: decided,
      },
      null,
      2,
    ),
  );
  await app.close();
  await decide.close();
  await db.destroy();
  simulator.stop();
}

/** The standalone simulator on a free port; resolves with its URL once it listens. */
async function startSimulator(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['-r', './scripts/register.js', 'libs/judgment/src/simulator/main.ts'], {
    cwd: `${__dirname}/..`,
    env: {
      ...process.env,
      JEV_SIMULATOR_PORT: '0',
      JEV_SIMULATOR_LATENCY_MS: String(LATENCY_MS),
      JEV_SIMULATOR_KEY: API_KEY,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`The simulator exited (${code}) before listening.`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening on (http\S+)/.exec(chunk.toString());
      if (match) resolve(match[1]);
    });
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
