// Helpers of the HTTP suites: a fresh PostgreSQL database, the support desk started as its API and worker processes
// would start it, and waiting for the worker.
import { randomUUID } from 'node:crypto';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { supportDeskConfig, type Env } from '../../apps/support-desk/src/config/support-desk.config';
import { SupportDeskModule } from '../../apps/support-desk/src/support-desk.module';
import { PG } from '../support/postgres';

/** A DataSource on the suite's database, for the test's own reads. */
export function openDatabase(database: string): Promise<DataSource> {
  return new DataSource({ ...PG, database }).initialize();
}

/** A BullMQ key prefix of its own, so the suite's jobs never meet another suite's workers. */
export function uniquePrefix(suite: string): string {
  return `${suite}-${randomUUID().slice(0, 8)}`;
}

/** The support desk's HTTP API, bootstrapped like main.ts (with a queue it only dispatches). */
export async function startApi(env: Env): Promise<INestApplication> {
  const config = supportDeskConfig(env);
  const app = await NestFactory.create(SupportDeskModule.forRoot(config, config.queue ? 'api' : 'all'), {
    logger: false,
    abortOnError: false,
  });
  await app.init();
  return app;
}

/** The support desk's worker, bootstrapped like worker.ts (BullMQ processors, no HTTP). */
export async function startWorker(env: Env): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(SupportDeskModule.forRoot(supportDeskConfig(env), 'worker'), {
    logger: false,
    abortOnError: false,
  });
  await app.init();
  return app;
}

/** Polls `probe` until it returns a value other than undefined (the worker runs asynchronously). */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
