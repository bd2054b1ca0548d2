// What `Judge.assess` adds over a bare axios POST of the same body to the Jev simulator (0 ms, its own process):
// persistence off, on SQLite (in memory) and on PostgreSQL; sequential and at concurrency 16; alternating rounds of
// one run. Prints p50/p99 latency, requests per second, client CPU per call, and each ratio to bare. The driver posts
// with undici, which costs less per request than axios: a bare undici POST is measured too, and each ratio to it.
//   node -r ./scripts/register.js bench/assess-overhead.bench.ts [calls per round]
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import axios from 'axios';
import { Judge, JudgmentModule, judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { DataSource } from 'typeorm';
import { describeAttempt } from '../libs/judgment/src/judge/attempt';
import { requestBody } from '../libs/judgment/src/engines/jev/jev.wire';
import {
  PG,
  RefundCheck,
  barePost,
  countPostgresStatements,
  median,
  percentile,
  recreateDatabase,
  startSimulator,
} from './support/bench';

const DATABASE = 'judgment_bench_cost_assess';
const KEY = 'apikey_bench_assess';
const MODEL = 'jev-1.13.0';
const CALLS = Number(process.argv[2] ?? 1000);
const CONCURRENCY = 16;
const statements = countPostgresStatements();
const ROUNDS = 3;

const TEXT = 'It leaks from the base; photo attached. [[abusive=0.05]] [[credibility=3:0.6]]';

type Mode = 'bare' | 'bare-undici' | 'off' | 'sqlite' | 'postgres';

async function judgeFor(mode: Exclude<Mode, 'bare' | 'bare-undici'>, url: string) {
  const typeOrm =
    mode === 'postgres'
      ? [TypeOrmModule.forRoot({ ...PG, database: DATABASE, entities: judgmentEntities, retryAttempts: 0 })]
      : // persistence off still declares the entity; an unused in-memory SQLite holds it
        [
          TypeOrmModule.forRoot({
            type: 'better-sqlite3',
            database: ':memory:',
            entities: judgmentEntities,
            migrations: judgmentMigrations,
            migrationsRun: true,
          }),
        ];
  @Module({
    imports: [
      ...typeOrm,
      JudgmentModule.forRoot({
        engine: 'jev',
        engines: { jev: { driver: 'jev', key: KEY, url, model: MODEL, retries: 0 } },
        persistence: { enabled: mode !== 'off' },
        log: false,
      }),
      JudgmentModule.forFeature([RefundCheck]),
    ],
  })
  class AssessBenchModule {}
  const app = await NestFactory.createApplicationContext(AssessBenchModule, { logger: ['error'] });
  return { app, judge: app.get(Judge) };
}

/** `count` calls with `concurrency` in flight: each call's latency, the wall time and the CPU this process used. */
async function run(count: number, concurrency: number, call: () => Promise<unknown>) {
  const ms: number[] = [];
  let started = 0;
  const cpu = process.cpuUsage();
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started++;
        const t = performance.now();
        await call();
        ms.push(performance.now() - t);
      }
    }),
  );
  const wallMs = performance.now() - begin;
  const used = process.cpuUsage(cpu);
  return { ms, wallMs, cpuMs: (used.user + used.system) / 1000 };
}

async function main() {
  await recreateDatabase(DATABASE);
  const migrate = await new DataSource({ ...PG, database: DATABASE, migrations: judgmentMigrations }).initialize();
  await migrate.runMigrations();
  await migrate.destroy();
  const simulator = await startSimulator(0, KEY);
  const endpoint = `${simulator.url}/v1/systemone`;
  const attempt = describeAttempt(new RefundCheck(TEXT));
  const body = requestBody(MODEL, attempt.evidence.shown, attempt.expanded);
  const headers = { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` };
  const http = axios.create({ headers, responseType: 'text' });
  const apps = {
    off: await judgeFor('off', simulator.url),
    sqlite: await judgeFor('sqlite', simulator.url),
    postgres: await judgeFor('postgres', simulator.url),
  };
  const calls: Record<Mode, () => Promise<unknown>> = {
    bare: () => http.post(endpoint, body),
    'bare-undici': () => barePost(endpoint, body, headers),
    off: () => apps.off.judge.assess(new RefundCheck(TEXT)),
    sqlite: () => apps.sqlite.judge.assess(new RefundCheck(TEXT)),
    postgres: () => apps.postgres.judge.assess(new RefundCheck(TEXT)),
  };
  const modes = Object.keys(calls) as Mode[];
  type Tally = { ms: number[]; wallMs: number; cpuMs: number; calls: number; statements: number };
  const fresh = (): Tally => ({ ms: [], wallMs: 0, cpuMs: 0, calls: 0, statements: 0 });
  const tallies = Object.fromEntries(modes.map((m) => [m, { sequential: fresh(), concurrent: fresh() }])) as Record<
    Mode,
    { sequential: Tally; concurrent: Tally }
  >;
  for (const mode of modes) {
    await run(200, CONCURRENCY, calls[mode]); // warm-up
    console.error(`warmed up ${mode}`);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modes) {
      for (const [kind, concurrency] of [
        ['sequential', 1],
        ['concurrent', CONCURRENCY],
      ] as const) {
        const sent = statements();
        const result = await run(CALLS, concurrency, calls[mode]);
        console.error(`round ${round + 1} ${mode} ${kind}: ${Math.round(result.wallMs)} ms`);
        const tally = tallies[mode][kind];
        tally.ms.push(...result.ms);
        tally.wallMs += result.wallMs;
        tally.cpuMs += result.cpuMs;
        tally.calls += CALLS;
        tally.statements += statements() - sent;
      }
    }
  }

  const bare = tallies.bare;
  const throughput = (tally: Tally) => tally.calls / (tally.wallMs / 1000);
  const rows = modes.map((mode) => {
    const { sequential, concurrent } = tallies[mode];
    const perSecond = throughput(concurrent);
    return {
      mode,
      'seq p50 ms': Number(median(sequential.ms).toFixed(3)),
      'seq p99 ms': Number(percentile(sequential.ms, 0.99).toFixed(3)),
      'added p50 ms': Number((median(sequential.ms) - median(bare.sequential.ms)).toFixed(3)),
      'added p99 ms': Number((percentile(sequential.ms, 0.99) - percentile(bare.sequential.ms, 0.99)).toFixed(3)),
      'c16 req/s': Math.round(perSecond),
      'c16 ratio to bare': Number((perSecond / throughput(bare.concurrent)).toFixed(2)),
      'c16 ratio to bare undici': Number((perSecond / throughput(tallies['bare-undici'].concurrent)).toFixed(2)),
      'CPU ms/call (c16)': Number((concurrent.cpuMs / concurrent.calls).toFixed(3)),
      'PG statements/call': Number((concurrent.statements / concurrent.calls).toFixed(2)),
    };
  });
  console.log(`${CALLS} calls × ${ROUNDS} alternating rounds per mode; simulator at 0 ms in its own process`);
  console.table(rows);
  for (const { app } of Object.values(apps)) await app.close();
  simulator.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
