// Queued throughput: judgments per second through the assess job (one Engine round, the record) and the chained
// decide job (rebuild from the record, the Outcome written), against the ideal of concurrency / Engine latency, and
// what each judgment costs: PostgreSQL statements (counted in this process), Redis commands (`INFO commandstats` of
// a redis-server of the bench's own) and CPU time of this process, its PostgreSQL backends and that Redis.
// Real Redis and PostgreSQL; the Jev simulator runs in its own process (a remote Engine, as in production), so it
// does not compete with the workers for their event loop. The same number of bare undici POSTs of the same body, with
// the same concurrency, then measure what the simulator and HTTP alone allow: the ratio to that is what the queue,
// the record and the decision cost.
//   node -r ./scripts/register.js bench/queue.bench.ts [judgments] [concurrency]
import { commandCalls, privateRedis } from './support/private-redis'; // first: it points the fixtures at its server
import { Judge } from 'nestjs-judgment';
import { describeAttempt } from '../libs/judgment/src/judge/attempt';
import { requestBody } from '../libs/judgment/src/engines/jev/jev.wire';
import {
  API_KEY,
  MODEL,
  Customer,
  EventLog,
  RefundCheck,
  createWorkerContext,
  freshDatabase,
  inspectQueue,
  openDatabase,
  uniquePrefix,
  waitFor,
} from '../test/queue/queue.fixtures';
import { barePostsPerSecond, countPostgresStatements, processCpuMs, startSimulator } from './support/bench';

const DATABASE = 'judgment_bench_queue';
const LATENCY_MS = 200;
const CONCURRENCY = Number(process.argv[3] ?? 32);
const WARM_UP = 64;
const JUDGMENTS = Number(process.argv[2] ?? 1600);

async function main() {
  await freshDatabase(DATABASE);
  const db = await openDatabase(DATABASE);
  const simulator = await startSimulator(LATENCY_MS, API_KEY);
  const redis = await privateRedis();
  const statements = countPostgresStatements();
  const prefix = uniquePrefix();
  const app = await createWorkerContext({
    database: DATABASE,
    prefix,
    simulatorUrl: simulator.url,
    queue: { concurrency: CONCURRENCY },
  });
  const judge = app.get(Judge);
  const events = app.get(EventLog);
  const decide = inspectQueue('judgment-decide', prefix);
  const customers = await db
    .getRepository(Customer)
    .save(Array.from({ length: WARM_UP + JUDGMENTS }, (_, n) => Object.assign(new Customer(), { name: `C${n}` })));
  const run = async (batch: Customer[], done: number) => {
    const started = performance.now();
    await Promise.all(batch.map((customer) => judge.dispatch(new RefundCheck(customer, `Case ${customer.id}.`))));
    const dispatched = performance.now();
    // Waits on the app's own events (no Redis command), then for the last decide jobs to finish: polling the decide
    // queue all along would add its commands to the count.
    await waitFor('the decisions', async () => events.decided.length >= done + batch.length, 600_000);
    await waitFor('the decide jobs', async () => (await decide.getCompletedCount()) >= done + batch.length, 60_000);
    return { dispatchMs: dispatched - started, totalMs: performance.now() - started };
  };

  await run(customers.slice(0, WARM_UP), 0);
  const backends: number[] = (
    await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [DATABASE])
  ).map((row: { pid: number }) => row.pid);
  const postgresCpuMs = () => backends.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const commands0 = await commandCalls(redis.client);
  const statements0 = statements();
  const [postgres0, redis0] = [postgresCpuMs(), processCpuMs(redis.pid)];
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const { dispatchMs, totalMs } = await run(customers.slice(WARM_UP), WARM_UP);
  const cpu = process.cpuUsage(cpu0);
  const busy = performance.eventLoopUtilization(elu0).utilization;
  const postgresMs = postgresCpuMs() - postgres0;
  const redisMs = processCpuMs(redis.pid) - redis0;
  const sent = statements() - statements0;
  const commands1 = await commandCalls(redis.client);
  const commandsPer = [...commands1]
    .map(([name, calls]) => [name, (calls - (commands0.get(name) ?? 0)) / JUDGMENTS] as const)
    .filter(([name, per]) => per > 0 && name !== 'info')
    .sort((a, b) => b[1] - a[1]);
  const nodeCpuMs = (cpu.user + cpu.system) / 1000;

  const [{ answered, decided }] = await db.query(
    `SELECT count(*)::int AS answered, count(*) FILTER (WHERE outcome IS NOT NULL)::int AS decided
       FROM judgment_assessments`,
  );
  const perSecond = JUDGMENTS / (totalMs / 1000);
  const ideal = CONCURRENCY / (LATENCY_MS / 1000);
  const bareHttp = await bareHttpPerSecond(simulator.url, new RefundCheck(customers[0], `Case ${customers[0].id}.`));
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
        bareHttpPerSecond: Number(bareHttp.toFixed(1)),
        ratioToBareHttp: Number((perSecond / bareHttp).toFixed(3)),
        // Near 1: this process is CPU-bound (dispatch, both workers and their TypeORM/BullMQ work share one thread).
        eventLoopUtilisation: Number(busy.toFixed(2)),
        cpuMsPerJudgment: Number((nodeCpuMs / JUDGMENTS).toFixed(2)),
        // This process, its PostgreSQL backends and the bench's Redis (not the simulator, which plays the Engine).
        machineCpuMsPerJudgment: Number(((nodeCpuMs + postgresMs + redisMs) / JUDGMENTS).toFixed(2)),
        postgresCpuMsPerJudgment: Number((postgresMs / JUDGMENTS).toFixed(2)),
        redisCpuMsPerJudgment: Number((redisMs / JUDGMENTS).toFixed(2)),
        postgresStatementsPerJudgment: Number((sent / JUDGMENTS).toFixed(2)),
        redisCommandsPerJudgment: Number(commandsPer.reduce((sum, [, per]) => sum + per, 0).toFixed(1)),
        redisCommands: Object.fromEntries(commandsPer.map(([name, per]) => [name, Number(per.toFixed(2))])),
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
  redis.stop();
  simulator.stop();
}

/** Requests per second of JUDGMENTS bare undici POSTs of the Judgment's request body, CONCURRENCY in flight. */
function bareHttpPerSecond(url: string, judgment: RefundCheck): Promise<number> {
  const attempt = describeAttempt(judgment);
  const body = requestBody(MODEL, attempt.evidence.shown, attempt.expanded);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
  return barePostsPerSecond(`${url}/v1/systemone`, body, headers, JUDGMENTS, CONCURRENCY);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
