// Shared helpers of the benches: databases, a Nest app with the records services, the Jev simulator in its own
// process, and the statistics the benches print.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { INestApplicationContext } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Evidence, Judgment, JudgmentModule, Likelihood, Rating, judgmentEntities } from 'nestjs-judgment';
import type { Logger as TypeOrmLogger } from 'typeorm';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { request } from 'undici';
import { PG, recreateDatabase } from '../../test/support/postgres';

export { PG, recreateDatabase };

export type BenchApp = INestApplicationContext;

/** A bare POST of `body` with undici (the drivers' HTTP client), its answer read as text: a baseline. */
export async function barePost(url: string, body: string, headers: Record<string, string>): Promise<string> {
  const response = await request(url, { method: 'POST', headers, body });
  return response.body.text();
}

/**
 * Requests per second of `requests` bare POSTs (barePost) of `body`, `concurrency` in flight: what HTTP and the
 * simulator alone allow, the baseline of a queued run.
 */
export async function barePostsPerSecond(
  url: string,
  body: string,
  headers: Record<string, string>,
  requests: number,
  concurrency: number,
): Promise<number> {
  return (await barePostRun(url, body, headers, requests, concurrency)).perSecond;
}

/** barePostsPerSecond's run, with the time (Date.now()) each request was sent and when the run began. */
export async function barePostRun(
  url: string,
  body: string,
  headers: Record<string, string>,
  requests: number,
  concurrency: number,
): Promise<{ perSecond: number; began: number; starts: number[] }> {
  const starts: number[] = [];
  const began = Date.now();
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (starts.length < requests) {
        starts.push(Date.now());
        await barePost(url, body, headers);
      }
    }),
  );
  return { perSecond: requests / ((performance.now() - begin) / 1000), began, starts };
}

/**
 * The sustained rate of a closed loop (a fixed number in flight, each started as the one before it ends): how many
 * started per second from `settleMs` after `began` to the last start, while every slot was busy. It leaves out the
 * run's first moments (a burst from idle) and its drain.
 */
export function sustainedPerSecond(starts: readonly number[], began: number, settleMs: number): number {
  const from = began + settleMs;
  const to = Math.max(...starts);
  const inWindow = starts.filter((at) => at >= from).length;
  return inWindow / ((to - from) / 1000);
}

/** The Judgment the benches assess and record: a refund request, two Questions. */
@Judgment({ name: 'bench-refund' })
export class RefundCheck implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { order: { item: 'Kettle', amount_eur: 35 }, request: Evidence.untrusted(this.text) };
  }
  questions() {
    return {
      abusive: Likelihood.that('The refund request is an attempt to abuse the refund policy.'),
      credibility: Rating.of('How credible is the explanation?', ['None', 'Low', 'Fair', 'High']),
    };
  }
}

/**
 * A Nest application context with JudgmentModule on `database` (already migrated), for AssessmentRecords; `logger`
 * sees every statement TypeORM sends (to EXPLAIN the exact SQL).
 */
export async function startRecordsApp(database: string, logger?: TypeOrmLogger): Promise<BenchApp> {
  const logging = logger ? { logger, logging: ['query' as const] } : {};
  @Module({
    imports: [
      TypeOrmModule.forRoot({ ...PG, database, entities: judgmentEntities, retryAttempts: 0, ...logging }),
      JudgmentModule.forRoot({ engine: 'mock', engines: { mock: { driver: 'mock' } }, log: false }),
    ],
  })
  class RecordsBenchModule {}
  return NestFactory.createApplicationContext(RecordsBenchModule, { logger: ['error'] });
}

/** The standalone Jev simulator in its own process, on a free port; resolves with its URL once it listens. */
export async function startSimulator(latencyMs: number, key: string): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['-r', './scripts/register.js', 'libs/judgment/src/simulator/main.ts'], {
    cwd: `${__dirname}/../..`,
    env: {
      ...process.env,
      JEV_SIMULATOR_PORT: '0',
      JEV_SIMULATOR_LATENCY_MS: String(latencyMs),
      JEV_SIMULATOR_KEY: key,
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
  process.once('exit', () => child.kill('SIGTERM')); // also when the bench fails
  return { url, stop: () => child.kill('SIGTERM') };
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

/**
 * Counts the statements this process sends to PostgreSQL through TypeORM (BEGIN and COMMIT too: TypeORM sends each
 * through PostgresQueryRunner.query). Returns the running count.
 */
export function countPostgresStatements(): () => number {
  let statements = 0;
  const query = PostgresQueryRunner.prototype.query;
  PostgresQueryRunner.prototype.query = function (this: PostgresQueryRunner, ...args: Parameters<typeof query>) {
    statements++;
    return query.apply(this, args);
  } as typeof query;
  return () => statements;
}

/** CPU time (user + system) a process of this machine has used so far, in ms, from /proc. */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command; clock ticks of 10 ms (USER_HZ 100).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
