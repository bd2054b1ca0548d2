// Shared fixtures of the queue suites (test/queue/*.e2e-spec.ts) and of the worker process they spawn: real Redis
// (a unique BullMQ prefix per app), real PostgreSQL, the Jev simulator over real HTTP.
import { randomUUID } from 'node:crypto';
import { Injectable, type INestApplicationContext, type Provider } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { Column, DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';
import {
  type Assessment,
  AssessmentCompleted,
  AssessmentDecided,
  AssessmentFailed,
  AssessmentRecord,
  Decision,
  Evidence,
  Judgment,
  JudgmentModule,
  type JudgmentModuleOptions,
  Likelihood,
  judgmentEntities,
} from 'nestjs-judgment';
import { type JudgmentQueueOptions } from '../../libs/judgment/src/judgment.options';
import { PG, recreateDatabase } from '../support/postgres';
import { REDIS } from '../support/redis';

export const API_KEY = 'sk-queue-test';
export const MODEL = 'jev-1.13.0';

// ---------------------------------------------------------------------------------------------------------------
// An application entity: the Subject that queued Judgments hold directly, so it travels by reference.

@Entity({ name: 'queue_customers' })
export class Customer {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  name!: string;
}

export const entities = [...judgmentEntities, Customer];

// ---------------------------------------------------------------------------------------------------------------
// Judgments and Decisions.

export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
}

/** Test switches: how many more times the Decision throws before it decides. */
export const decisionFaults = { remaining: 0, calls: 0 };

@Decision({ name: 'queue-refund-decision', outcomes: RefundOutcome, review: [], version: '1' })
export class RefundDecision implements Decision<RefundCheck, RefundOutcome> {
  decide(assessment: Assessment<RefundCheck>): RefundOutcome {
    decisionFaults.calls++;
    if (decisionFaults.remaining > 0) {
      decisionFaults.remaining--;
      throw new Error('The refund policy service is briefly unavailable.');
    }
    return assessment.likelihood('abusive').above(0.5) ? RefundOutcome.Escalate : RefundOutcome.Approve;
  }
}

/** A refund request about a Customer (held directly: queued by reference), with plain data beside it. */
@Judgment({ name: 'queue-refund', decision: () => RefundDecision })
export class RefundCheck implements Judgment {
  constructor(
    readonly customer: Customer,
    readonly text: string,
    readonly placedAt: Date = new Date('2026-01-02T03:04:05.000Z'),
  ) {}

  evidence() {
    return {
      customer: this.customer.name,
      placedAt: this.placedAt.toISOString(),
      request: Evidence.untrusted(this.text),
    };
  }

  questions() {
    return { abusive: Likelihood.that('The refund request is an attempt to abuse the refund policy.') };
  }
}

/** A Judgment without a default Decision: it is only assessed. */
@Judgment({ name: 'queue-moderation' })
export class Moderation implements Judgment {
  constructor(readonly text: string) {}

  evidence() {
    return { post: Evidence.untrusted(this.text) };
  }

  questions() {
    return { toxic: Likelihood.that('The post insults someone.') };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Events, as the app's listeners see them.

@Injectable()
export class EventLog {
  readonly completed: AssessmentCompleted[] = [];
  readonly failed: AssessmentFailed[] = [];
  readonly decided: AssessmentDecided[] = [];

  @OnEvent(AssessmentCompleted.NAME)
  onCompleted(event: AssessmentCompleted) {
    this.completed.push(event);
  }

  @OnEvent(AssessmentFailed.NAME)
  onFailed(event: AssessmentFailed) {
    this.failed.push(event);
  }

  @OnEvent(AssessmentDecided.NAME)
  onDecided(event: AssessmentDecided) {
    this.decided.push(event);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Databases and apps.

/** Drops and recreates a database, then creates the package's and the app's tables. */
export async function freshDatabase(database: string, port = PG.port): Promise<void> {
  await recreateDatabase(database, port);
  const schema = new DataSource({ ...postgres(database, port), synchronize: true });
  await schema.initialize();
  await schema.destroy();
}

function postgres(database: string, port = PG.port) {
  return { ...PG, port, database, entities };
}

/** A DataSource on the suite's database, for the test's own reads and writes. */
export async function openDatabase(database: string, port = PG.port): Promise<DataSource> {
  return new DataSource(postgres(database, port)).initialize();
}

/** A unique BullMQ key prefix, so every app of a test has its own queues. */
export function uniquePrefix(): string {
  return `jq-${randomUUID().slice(0, 8)}`;
}

export interface QueueAppSettings {
  database: string;
  /** The PostgreSQL port (default: the suites' server; a fault test's private server listens elsewhere). */
  port?: number;
  prefix: string;
  /** BullMQ's Redis connection (default: the suites' Redis); an ioredis Cluster in the cluster suite. */
  connection?: object;
  simulatorUrl: string;
  queue?: JudgmentQueueOptions;
  options?: JudgmentModuleOptions;
  /** Providers replacing the app's (e.g. a Judge). */
  overrides?: { provide: unknown; useValue: unknown }[];
  /** The Judgments registered (default RefundCheck and Moderation). */
  judgments?: Function[];
  /** More modules of the app (e.g. a CacheModule). */
  imports?: any[];
  /** The TypeORM pool's size (default TypeORM's: 10). */
  poolSize?: number;
}

/** Module metadata of an app with the queue on: TypeORM, EventEmitter, BullMQ (forRoot owned by the app). */
function imports(settings: QueueAppSettings) {
  return [
    TypeOrmModule.forRoot({
      ...postgres(settings.database, settings.port),
      retryAttempts: 0,
      ...(settings.poolSize === undefined ? {} : { poolSize: settings.poolSize }),
    }),
    EventEmitterModule.forRoot(),
    ...(settings.queue?.enabled === false
      ? []
      : [BullModule.forRoot({ connection: (settings.connection ?? REDIS) as typeof REDIS, prefix: settings.prefix })]),
    JudgmentModule.forRoot({
      engine: 'jev',
      engines: { jev: { driver: 'jev', key: API_KEY, url: settings.simulatorUrl, model: MODEL, retries: 0 } },
      log: false,
      ...settings.options,
      queue: { enabled: true, ...settings.queue },
    }),
    JudgmentModule.forFeature(settings.judgments ?? [RefundCheck, Moderation]),
    ...(settings.imports ?? []),
  ];
}

/** A Nest app of a test (the Nest testing module, so providers can be overridden); `init()` is called. */
export async function startQueueApp(settings: QueueAppSettings): Promise<INestApplicationContext> {
  let builder = Test.createTestingModule({ imports: imports(settings), providers: [EventLog] as Provider[] });
  for (const override of settings.overrides ?? [])
    builder = builder.overrideProvider(override.provide).useValue(override.useValue);
  const app = (await builder.compile()).createNestApplication({ logger: false });
  await app.init();
  return app;
}

/** A plain application context (what a worker process runs). */
export async function createWorkerContext(settings: QueueAppSettings): Promise<INestApplicationContext> {
  const { Module } = await import('@nestjs/common');
  @Module({ imports: imports(settings), providers: [EventLog] })
  class WorkerModule {}
  return NestFactory.createApplicationContext(WorkerModule, { logger: ['error'] });
}

/** A BullMQ Queue on the test's prefix, for inspecting jobs. */
export function inspectQueue(name: string, prefix: string): Queue {
  return new Queue(name, { connection: REDIS, prefix });
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Polls `count` until it reaches `target`. Fails only when the count has not grown for `stallMs`: a loaded machine
 * makes slow progress, which is no fault; no progress at all is one.
 */
export async function waitForProgress(what: string, count: () => Promise<number>, target: number, stallMs: number) {
  let reached = -1;
  let grewAt = Date.now();
  for (;;) {
    const now = await count();
    if (now >= target) return;
    if (now > reached) [reached, grewAt] = [now, Date.now()];
    else if (Date.now() - grewAt > stallMs)
      throw new Error(`No progress waiting for ${what}: stuck at ${now} of ${target} for ${stallMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until a job is completed or failed, and returns it with its state. The state is read first and the job
 * after it: BullMQ moves a job to its final set and stores its attemptsMade, failedReason and returnvalue in one
 * script, so a job read after its final state holds the final fields, while a job read before it may be a snapshot
 * of an earlier attempt (a retried job ends `failed` only once its attempts are spent; until then it is `delayed`).
 */
export async function finished(queue: Queue, id: string, timeoutMs?: number) {
  return waitFor(
    `job ${id} of ${queue.name} to finish`,
    async () => {
      const state = await queue.getJobState(id);
      if (state !== 'completed' && state !== 'failed') return undefined;
      return { job: (await queue.getJob(id))!, state };
    },
    timeoutMs,
  );
}

export { AssessmentRecord };
