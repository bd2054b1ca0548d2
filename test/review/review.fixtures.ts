// Shared fixtures of the review suites: Judgments with saved Subjects, Decisions that route to Review, a Nest app
// on a per-suite PostgreSQL database (tables from judgmentMigrations), the Jev simulator, events and log capture.
import {
  type DynamicModule,
  Global,
  type INestApplication,
  Injectable,
  type LoggerService,
  Module,
  type Provider,
  type Type,
} from '@nestjs/common';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Column, DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';
import {
  type Assessment,
  AssessmentDecided,
  AssessmentRecord,
  AssessmentRecords,
  Decision,
  Evidence,
  Judge,
  Judgment,
  type JudgmentModuleOptions,
  JudgmentModule,
  Likelihood,
  ReviewRequested,
  ReviewResolved,
  judgmentEntities,
  judgmentMigrations,
} from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { PG, recreateDatabase } from '../support/postgres';

/** The Subject of RefundAbuse: its note is the Evidence (steer the simulator with markers like `[[abusive=0.5]]`). */
@Entity({ name: 'review_customers' })
export class Customer {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'text' })
  note!: string;
}

/** A reviewer entity (recorded as resolver_type `Moderator`). */
@Entity({ name: 'review_moderators' })
export class Moderator {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'boolean', default: true })
  active!: boolean;
}

export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

/** Escalates (Review) between .30 and .65. */
@Decision({
  outcomes: RefundOutcome,
  review: [RefundOutcome.Escalate],
  version: '2',
  name: 'refund-decision',
  outcomeType: 'RefundOutcome',
})
export class RefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return RefundOutcome.Reject;
    if (abusive.above(0.3)) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}

/** Rejects above .20, never asks for Review, has no version. */
@Decision({
  outcomes: RefundOutcome,
  review: [RefundOutcome.Escalate],
  name: 'strict-refund',
  outcomeType: 'RefundOutcome',
})
export class StrictRefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    return assessment.likelihood('abusive').above(0.2) ? RefundOutcome.Reject : RefundOutcome.Approve;
  }
}

@Judgment({ name: 'refund-abuse', decision: () => RefundDecision })
export class RefundAbuse implements Judgment {
  /** `wording` changes the Question (a new question set, so old records no longer rebuild over it). */
  constructor(
    readonly customer: Customer,
    readonly wording = 'Is this refund request an attempt to abuse the refund policy?',
  ) {}

  evidence() {
    return { note: Evidence.untrusted(this.customer.note) };
  }

  questions() {
    return { abusive: Likelihood.that(this.wording) };
  }
}

/** Escalates above .50. */
@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], name: 'free-text-decision' })
export class FreeTextDecision implements Decision<FreeText, RefundOutcome> {
  decide(assessment: Assessment<FreeText>): RefundOutcome {
    return assessment.likelihood('abusive').above(0.5) ? RefundOutcome.Escalate : RefundOutcome.Approve;
  }
}

/** A Judgment without a Subject (its records have no subject_type), with the same question key as RefundAbuse. */
@Judgment({ name: 'free-text', decision: () => FreeTextDecision })
export class FreeText implements Judgment {
  constructor(
    readonly text: string,
    private readonly lang: string | null = null,
  ) {}

  evidence() {
    return { text: Evidence.untrusted(this.text) };
  }

  questions() {
    return { abusive: Likelihood.that('Is this text abusive?') };
  }

  language() {
    return this.lang;
  }
}

export enum Priority {
  Low = 0,
  Normal = 1,
  Urgent = 2,
}

/** A numeric Outcome enum: Urgent (above .50) needs Review. */
@Decision({ outcomes: Priority, review: [Priority.Urgent], name: 'ticket-decision', outcomeType: 'Priority' })
export class TicketDecision implements Decision<TicketTriage, Priority> {
  decide(assessment: Assessment<TicketTriage>): Priority {
    const urgent = assessment.likelihood('urgent');
    if (urgent.above(0.5)) return Priority.Urgent;
    return urgent.above(0.2) ? Priority.Normal : Priority.Low;
  }
}

@Judgment({ name: 'ticket-triage', decision: () => TicketDecision })
export class TicketTriage implements Judgment {
  constructor(readonly customer: Customer) {}

  evidence() {
    return { note: Evidence.untrusted(this.customer.note) };
  }

  questions() {
    return { urgent: Likelihood.that('Does this ticket need an answer today?') };
  }
}

/** A Nest logger that keeps the package's structured log lines. */
export class LogCapture implements LoggerService {
  readonly lines: Array<Record<string, unknown>> = [];
  readonly timeline: string[] = [];

  log(message: unknown, context?: string): void {
    if (context === 'Judgment' && typeof message === 'object' && message !== null) {
      this.lines.push(message as Record<string, unknown>);
      this.timeline.push(`log ${(message as { message: string }).message}`);
    }
  }
  warn(message: unknown, context?: string): void {
    this.log(message, context);
  }
  error(): void {}
  debug(): void {}
  verbose(): void {}

  /** The `Judgment decided.` lines of one judgment. */
  decided(judgment?: string): Array<Record<string, unknown>> {
    return this.lines.filter(
      (line) => line.message === 'Judgment decided.' && (!judgment || line.judgment === judgment),
    );
  }
}

/** Every event the package fired, in order, and a shared timeline with the captured log lines. */
@Injectable()
export class EventLog {
  readonly events: Array<{ name: string; event: any }> = [];
  /** When set, AssessmentDecided listeners throw this. */
  explode: Error | null = null;

  constructor(private readonly logs: LogCapture) {}

  @OnEvent(ReviewRequested.NAME)
  requested(event: ReviewRequested): void {
    this.push(ReviewRequested.NAME, event);
  }

  @OnEvent(AssessmentDecided.NAME, { suppressErrors: false })
  decided(event: AssessmentDecided): void {
    this.push(AssessmentDecided.NAME, event);
    if (this.explode) throw this.explode;
  }

  @OnEvent(ReviewResolved.NAME)
  resolved(event: ReviewResolved): void {
    this.push(ReviewResolved.NAME, event);
  }

  /** The events of one class, optionally only those about one record id. */
  of<E>(cls: { NAME: string }, recordId?: number): E[] {
    return this.events
      .filter(({ name, event }) => name === cls.NAME && (recordId === undefined || event.record?.id === recordId))
      .map(({ event }) => event as E);
  }

  private push(name: string, event: unknown): void {
    this.events.push({ name, event });
    this.logs.timeline.push(`event ${name}`);
  }
}

/** Drops and recreates `database`, creates judgment_assessments through judgmentMigrations and the fixture tables. */
export async function prepareDatabase(database: string): Promise<void> {
  await recreateDatabase(database);
  const dataSource = new DataSource({ ...PG, database, entities: judgmentEntities, migrations: judgmentMigrations });
  await dataSource.initialize();
  await dataSource.runMigrations();
  await dataSource.query('CREATE TABLE review_customers (id serial PRIMARY KEY, note text NOT NULL)');
  await dataSource.query(
    'CREATE TABLE review_moderators (id serial PRIMARY KEY, active boolean NOT NULL DEFAULT true)',
  );
  await dataSource.destroy();
}

export const SIMULATOR_KEY = 'apikey_review';

/** Starts the Jev simulator the suites' `jev` connection talks to. */
export async function startSimulator(): Promise<{ simulator: JevSimulator; url: string }> {
  const simulator = new JevSimulator({ apiKey: SIMULATOR_KEY });
  return { simulator, url: await simulator.start(0) };
}

/** One app of a suite: the services the tests use, its events and its log lines. */
export interface ReviewApp {
  app: INestApplication;
  judge: Judge;
  records: AssessmentRecords;
  dataSource: DataSource;
  events: EventLog;
  logs: LogCapture;
  /** Saves a Customer whose note is the Evidence. */
  customer(note: string): Promise<Customer>;
  /** Reads a record's row as it is now. */
  row(id: number): Promise<AssessmentRecord>;
}

/** What a suite adds to its app: forRoot() options, root providers, imported modules, a shared log capture. */
export interface AppSetup {
  options?: JudgmentModuleOptions;
  providers?: Provider[];
  imports?: Array<Type | DynamicModule>;
  logs?: LogCapture;
}

/** Boots an app on `database` with the `jev` connection at `url`. */
export async function startApp(
  database: string,
  url: string,
  { options = {}, providers = [], imports = [], logs = new LogCapture() }: AppSetup = {},
): Promise<ReviewApp> {
  @Global()
  @Module({ providers: [{ provide: LogCapture, useValue: logs }], exports: [LogCapture] })
  class LogCaptureModule {}

  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        ...PG,
        database,
        entities: [...judgmentEntities, Customer, Moderator],
        retryAttempts: 0,
      }),
      EventEmitterModule.forRoot(),
      LogCaptureModule,
      JudgmentModule.forRoot({
        engine: 'jev',
        engines: { jev: { driver: 'jev', key: SIMULATOR_KEY, url, model: 'jev-1.13.0', retries: 0 } },
        ...options,
      }),
      JudgmentModule.forFeature([RefundAbuse, FreeText, TicketTriage, StrictRefundDecision]),
      ...imports,
    ],
    providers: [EventLog, ...providers],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: logs });
  await app.init();
  const dataSource = app.get(DataSource);
  return {
    app,
    judge: app.get(Judge),
    records: app.get(AssessmentRecords),
    dataSource,
    events: app.get(EventLog),
    logs,
    customer: (note) => dataSource.getRepository(Customer).save(dataSource.getRepository(Customer).create({ note })),
    row: (id) => dataSource.getRepository(AssessmentRecord).findOneByOrFail({ id }),
  };
}

/** Assesses RefundAbuse for a new Customer with this note; resolves to the Assessment and its (undecided) record. */
export async function assessRefund(
  context: ReviewApp,
  note: string,
): Promise<{ customer: Customer; assessment: Assessment<RefundAbuse>; record: AssessmentRecord }> {
  const customer = await context.customer(note);
  const assessment = (await context.judge.assess(new RefundAbuse(customer))) as Assessment<RefundAbuse>;
  const record = await context.records.latest(customer, RefundAbuse);
  if (!record) throw new Error(`no record was written for customer #${customer.id}`);
  return { customer, assessment, record };
}
