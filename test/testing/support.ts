// Shared fixtures of the fake Judge suites (test/testing/*.e2e-spec.ts): a Judgment asking every kind of Question
// about a TypeORM Subject, and apps on a fresh in-memory SQLite database (plus real Redis when queued).
import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Column, DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';
import {
  type Assessment,
  AssessmentRecord,
  Classification,
  Decision,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  type JudgmentModuleOptions,
  Likelihood,
  Rating,
} from 'nestjs-judgment';
import {
  FakeJudge,
  type JudgmentScripts,
  JudgmentTestingModule,
  type JudgmentTestingOptions,
  AnswerSource,
} from 'nestjs-judgment/testing';
import { CapturedLogger, EventLog } from '../../libs/judgment/src/testing/testing.spec-helpers';
import { REDIS, clearPrefix } from '../support/redis';

@Entity({ name: 'tickets' })
export class TicketRow {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'text' })
  body!: string;
}

/** An int-backed Outcome enum: the Outcome read back from a record must come back as the number. */
export enum Priority {
  Normal = 0,
  Urgent = 1,
}

@Decision({ outcomes: Priority, review: [Priority.Urgent], version: 3 })
export class Prioritise implements Decision<TicketTriage, Priority> {
  decide(assessment: Assessment<TicketTriage>): Priority {
    return assessment.likelihood('urgent').above(0.5) ? Priority.Urgent : Priority.Normal;
  }
}

/** Every kind of Question, a Subject entity, a language and untrusted text: every column a record has. */
@Judgment({ name: 'ticket-triage', decision: () => Prioritise })
export class TicketTriage implements Judgment {
  constructor(readonly ticket: TicketRow) {}

  subject() {
    return this.ticket;
  }

  language() {
    return 'en';
  }

  evidence() {
    return { ticket: { id: this.ticket.id, body: Evidence.untrusted(this.ticket.body) } };
  }

  questions() {
    return {
      urgent: Likelihood.that('Does the customer report an outage?'),
      department: Classification.of('Which team should handle it?', ['billing', 'technical']).orNone(),
      severity: Rating.of('How severe is the problem?', ['Minor', 'Major', 'Critical']),
      harms: Likelihood.each({ spam: 'Is it advertising?', abuse: 'Does it insult anyone?' }),
    };
  }
}

export const MOCK: JudgmentModuleOptions = {
  engine: 'mock',
  engines: { mock: { driver: 'mock', model: 'mock-1.0.0' } },
};
/** Columns that differ between any two rows (identity and timestamps). */
export const IDENTITY = ['id', 'createdAt', 'updatedAt'] as const;
/** Columns where a fake row differs from the Judge's by design. */
export const PROVENANCE = ['engine', 'model', 'requestId', 'provenanceDetails', 'costBasis'] as const;

export interface Started {
  app: INestApplication;
  judge: Judge;
  db: DataSource;
  log: EventLog;
  logger: CapturedLogger;
}

const apps: INestApplication[] = [];
/** The BullMQ prefixes of the queued apps a test started. */
const prefixes: string[] = [];
/** Closes the apps a test started, then deletes their queues' Redis keys (call it in afterEach). */
export async function closeApps(): Promise<void> {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  for (const prefix of prefixes.splice(0)) await clearPrefix(prefix);
}

/**
 * An app on a fresh in-memory SQLite database with the given Judgment module: the real one (mock Engine), the testing
 * one, or the real one with its AnswerSource overridden by a fake. `queue` adds a real BullMQ queue on Redis.
 */
export async function start(
  judgment: 'real' | 'testing' | FakeJudge,
  options: JudgmentTestingOptions = {},
  scripts: JudgmentScripts = {},
): Promise<Started> {
  const prefix = `judgment-testing-${randomUUID()}`;
  if (options.queue?.enabled) prefixes.push(prefix);
  let builder = Test.createTestingModule({
    imports: [
      ...(options.queue?.enabled ? [BullModule.forRoot({ connection: REDIS, prefix })] : []),
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: [TicketRow],
        autoLoadEntities: true,
        synchronize: true,
        retryAttempts: 0,
      }),
      EventEmitterModule.forRoot(),
      judgment === 'testing'
        ? JudgmentTestingModule.forRoot({ ...options, scripts })
        : JudgmentModule.forRoot({ ...MOCK, ...options }),
      JudgmentModule.forFeature([TicketTriage]),
    ],
    providers: [EventLog],
  });
  if (judgment instanceof FakeJudge) builder = builder.overrideProvider(AnswerSource).useValue(judgment);
  const logger = new CapturedLogger();
  const app = (await builder.compile()).createNestApplication({ logger });
  apps.push(app);
  await app.init();
  return { app, judge: app.get(Judge), db: app.get(DataSource), log: app.get(EventLog), logger };
}

export async function triage({ db }: Started, body = 'The whole site is down since 9am!'): Promise<TicketTriage> {
  const tickets = db.getRepository(TicketRow);
  return new TicketTriage(await tickets.save(tickets.create({ body })));
}

export const rows = ({ db }: Started) => db.getRepository(AssessmentRecord).find({ order: { id: 'ASC' } });

export function without<T extends object>(row: T, keys: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(row).filter(([key]) => !keys.includes(key))) as Partial<T>;
}
