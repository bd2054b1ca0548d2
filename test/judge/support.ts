// Shared fixtures of the Judge suites (test/judge/*.e2e-spec.ts): real PostgreSQL and SQLite, the Jev simulator over
// real HTTP, a capturing Nest logger and an @OnEvent listener that keep everything the package logs and announces.
import { inspect } from 'node:util';
import {
  type DynamicModule,
  Inject,
  Injectable,
  type INestApplication,
  type LoggerService,
  type ModuleMetadata,
  type Provider,
} from '@nestjs/common';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import {
  Column,
  DataSource,
  Entity,
  type MigrationInterface,
  PrimaryGeneratedColumn,
  type QueryRunner,
  Table,
} from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import {
  type Assessment,
  AssessmentCompleted,
  AssessmentDecided,
  AssessmentFailed,
  AssessmentRecord,
  Classification,
  Decision,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  type JudgmentModuleExtras,
  type JudgmentModuleOptions,
  Likelihood,
  Rating,
  ReviewRequested,
  ReviewResolved,
  judgmentEntities,
  judgmentMigrations,
} from 'nestjs-judgment';
import { type EngineConnectionOptions } from 'nestjs-judgment/drivers';
import { PG, recreateDatabase } from '../support/postgres';

/** The API key every suite gives the simulator and the jev connection; it must never surface anywhere else. */
export const API_KEY = 'sk-SECRET-judge';
/** The versioned model the simulator reports. */
export const MODEL = 'jev-1.13.0';

export type DbKind = 'postgres' | 'sqlite';
export const DB_KINDS: DbKind[] = ['postgres', 'sqlite'];

// ---------------------------------------------------------------------------------------------------------------
// An application entity, saved in the same database as the records, so Judgments have a real TypeORM Subject.

@Entity({ name: 'refunds' })
export class Refund {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 255 })
  item!: string;

  @Column({ type: 'integer' })
  amount!: number;

  @Column({ type: 'text' })
  explanation!: string;

  @Column({ type: 'varchar', length: 16, nullable: true })
  locale!: string | null;
}

/** The app's own migration for `refunds`, run after the package's migrations. */
export class CreateRefunds1764400000001 implements MigrationInterface {
  name = 'CreateRefunds1764400000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'refunds',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'item', type: 'varchar', length: '255' },
          { name: 'amount', type: 'integer' },
          { name: 'explanation', type: 'text' },
          { name: 'locale', type: 'varchar', length: '16', isNullable: true },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('refunds');
  }
}

/** Entities listed explicitly (no autoLoadEntities): the package's exported list plus the app's own. */
export const testEntities = [...judgmentEntities, Refund];
export const testMigrations = [...judgmentMigrations, CreateRefunds1764400000001];

export function aRefund(overrides: Partial<Refund> = {}): Refund {
  return Object.assign(new Refund(), {
    item: 'Headphones',
    amount: 90,
    explanation: 'They arrived broken. [[abusive=0.2]] [[credibility=3:0.7]] [[department=billing:0.6]]',
    locale: 'en',
    ...overrides,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Judgments and Decisions.

export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

export const DEPARTMENTS = ['billing', 'shipping', 'other'];
export const CREDIBILITY = ['Not credible', 'Doubtful', 'Plausible', 'Fully credible'];

/** Every Question kind, a Likelihood Set among them; the Subject is the single Refund entity among its properties. */
@Judgment({ name: 'refund-abuse', decision: () => RefundDecision })
export class RefundAbuse implements Judgment {
  constructor(readonly refund: Refund) {}

  evidence() {
    return {
      order: { item: this.refund.item, amount_eur: this.refund.amount },
      request: { explanation: Evidence.untrusted(this.refund.explanation) },
    };
  }

  questions() {
    return {
      abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?').means({
        true: 'Likely a claim the customer is not entitled to',
        false: 'A good-faith claim',
      }),
      credibility: Rating.of('How credible is the explanation in request.explanation?', CREDIBILITY),
      department: Classification.of('Which department should handle the request?', DEPARTMENTS),
      harms: Likelihood.each({
        threat: 'Does the explanation threaten anyone?',
        spam: 'Is the explanation unsolicited advertising?',
      }),
    };
  }

  language() {
    return this.refund.locale;
  }
}

@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], version: '2' })
export class RefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return RefundOutcome.Reject;
    if (abusive.above(0.3)) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}

/** A one-question Judgment over free text (no entity): the cheapest real Engine round. */
@Judgment({ name: 'note-check' })
export class NoteCheck implements Judgment {
  constructor(
    readonly note: string,
    readonly options: { untrusted?: boolean; cacheFor?: number | null; engine?: string; wording?: string } = {},
  ) {}

  evidence() {
    return { note: this.options.untrusted === false ? this.note : Evidence.untrusted(this.note) };
  }

  questions() {
    return { flagged: Likelihood.that(this.options.wording ?? 'Does the note ask for something against the rules?') };
  }

  cacheFor() {
    return this.options.cacheFor ?? null;
  }

  engine() {
    return this.options.engine ?? null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Engine connections and the simulator.

export function jevConnection(url: string, overrides: EngineConnectionOptions = {}): EngineConnectionOptions {
  return { driver: 'jev', key: API_KEY, url, model: MODEL, timeout: 2, retries: 1, ...overrides };
}

/** Options whose default connection `jev` is the simulator at `url`. */
export function jevOptions(url: string, overrides: JudgmentModuleOptions = {}): JudgmentModuleOptions {
  return { engine: 'jev', ...overrides, engines: { jev: jevConnection(url), ...overrides.engines } };
}

/** A Jev simulator on loopback that requires the suite's API key. */
export async function startSimulator(): Promise<{ sim: JevSimulator; url: string }> {
  const sim = new JevSimulator({ apiKey: API_KEY });
  const url = await sim.start();
  return { sim, url };
}

/** The decision requests (`POST /v1/systemone`) the simulator received. */
export function decisionRequests(sim: JevSimulator) {
  return sim.requests.filter((request) => request.path === '/v1/systemone');
}

// ---------------------------------------------------------------------------------------------------------------
// Databases.

/** A suite's own PostgreSQL database, created through the package's migrations, with a connection for inspection. */
export class SuiteDatabase {
  private constructor(
    readonly name: string,
    readonly postgres: DataSource,
  ) {}

  /** Drops and recreates the database, then runs `judgmentMigrations` (and the app's `refunds` migration). */
  static async create(name: string): Promise<SuiteDatabase> {
    await recreateDatabase(name);
    const postgres = new DataSource({ ...PG, database: name, entities: testEntities, migrations: testMigrations });
    await postgres.initialize();
    const ran = await postgres.runMigrations();
    if (ran.length !== testMigrations.length) throw new Error(`Only ${ran.length} migrations ran on ${name}.`);
    await postgres.query(
      `CREATE OR REPLACE FUNCTION judgment_refuse() RETURNS trigger AS $$
       BEGIN RAISE EXCEPTION 'writes to judgment_assessments are refused by the test'; END $$ LANGUAGE plpgsql`,
    );
    return new SuiteDatabase(name, postgres);
  }

  /** Empties the tables and lifts any refusal, so each test starts from id 1. */
  async reset(): Promise<void> {
    await this.postgres.query('DROP TRIGGER IF EXISTS judgment_refuse ON judgment_assessments');
    await this.postgres.query('TRUNCATE judgment_assessments, refunds RESTART IDENTITY');
  }

  async close(): Promise<void> {
    await this.postgres.destroy();
  }

  /** The TypeORM root module of an app on this database (PostgreSQL), or on a fresh in-memory SQLite database. */
  typeOrm(kind: DbKind, extra: { name?: string } = {}): DynamicModule {
    return typeOrmRoot(kind, this.name, extra);
  }
}

/** TypeORM for an app: PostgreSQL on `database` (already migrated), or SQLite in memory migrated at startup. */
export function typeOrmRoot(kind: DbKind, database: string, extra: { name?: string } = {}): DynamicModule {
  return kind === 'postgres'
    ? TypeOrmModule.forRoot({ ...PG, database, entities: testEntities, retryAttempts: 0, ...extra })
    : TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: testEntities,
        migrations: testMigrations,
        migrationsRun: true,
        retryAttempts: 0,
        ...extra,
      });
}

/** Makes the database refuse every new record (a trigger that raises), as a failing or read-only database would. */
export async function refuseWrites(dataSource: DataSource): Promise<void> {
  await dataSource.query(
    dataSource.options.type === 'postgres'
      ? 'CREATE TRIGGER judgment_refuse BEFORE INSERT ON judgment_assessments FOR EACH ROW EXECUTE FUNCTION judgment_refuse()'
      : "CREATE TRIGGER judgment_refuse BEFORE INSERT ON judgment_assessments BEGIN SELECT RAISE(ABORT, 'writes to judgment_assessments are refused by the test'); END",
  );
}

export async function allowWrites(dataSource: DataSource): Promise<void> {
  await dataSource.query(
    dataSource.options.type === 'postgres'
      ? 'DROP TRIGGER IF EXISTS judgment_refuse ON judgment_assessments'
      : 'DROP TRIGGER IF EXISTS judgment_refuse',
  );
}

// ---------------------------------------------------------------------------------------------------------------
// What an app logged and announced.

/** One line the package logged (Nest Logger, context `Judgment`). */
export interface LogLine {
  readonly level: string;
  readonly message: string;
  /** The structured context: everything beside `message`. */
  readonly fields: Record<string, unknown>;
}

/** Everything an app logged and announced, in order. */
export class Captured {
  /** Lines of the `Judgment` logger. */
  readonly logs: LogLine[] = [];
  /** Events received by @OnEvent listeners. */
  readonly events: object[] = [];
  /** `event:<NAME>` and `log:<message>` in the order they happened. */
  readonly trail: string[] = [];
  /** Every logger call of the app (any context), rendered, for secrecy checks. */
  readonly everything: string[] = [];

  messages(): string[] {
    return this.logs.map((line) => line.message);
  }

  line(message: string): LogLine | undefined {
    return this.logs.find((line) => line.message === message);
  }

  of<T extends object>(type: abstract new (...args: any[]) => T): T[] {
    return this.events.filter((event): event is T => event instanceof type);
  }
}

/** A Nest LoggerService that keeps what it is given. */
class CapturingLogger implements LoggerService {
  constructor(private readonly captured: Captured) {}

  log(message: unknown, ...params: unknown[]) {
    this.keep('log', message, params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.keep('warn', message, params);
  }
  error(message: unknown, ...params: unknown[]) {
    this.keep('error', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.keep('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.keep('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]) {
    this.keep('fatal', message, params);
  }

  private keep(level: string, message: unknown, params: unknown[]) {
    this.captured.everything.push(inspect([level, message, params], { depth: null, showHidden: true }));
    if (params[params.length - 1] !== 'Judgment') return;
    const { message: text, ...fields } =
      typeof message === 'object' && message !== null ? (message as { message: string }) : { message: String(message) };
    this.captured.logs.push({ level, message: text, fields });
    this.captured.trail.push(`log:${text}`);
  }
}

const CAPTURED = Symbol('CAPTURED');

/** Listens to every package event with @OnEvent. */
@Injectable()
export class EventRecorder {
  constructor(@Inject(CAPTURED) private readonly captured: Captured) {}

  @OnEvent(AssessmentCompleted.NAME)
  completed(event: AssessmentCompleted) {
    this.keep(AssessmentCompleted.NAME, event);
  }

  @OnEvent(AssessmentFailed.NAME)
  failed(event: AssessmentFailed) {
    this.keep(AssessmentFailed.NAME, event);
  }

  @OnEvent(AssessmentDecided.NAME)
  decided(event: AssessmentDecided) {
    this.keep(AssessmentDecided.NAME, event);
  }

  @OnEvent(ReviewRequested.NAME)
  reviewRequested(event: ReviewRequested) {
    this.keep(ReviewRequested.NAME, event);
  }

  @OnEvent(ReviewResolved.NAME)
  reviewResolved(event: ReviewResolved) {
    this.keep(ReviewResolved.NAME, event);
  }

  private keep(name: string, event: object) {
    this.captured.events.push(event);
    this.captured.trail.push(`event:${name}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Apps.

export interface AppSetup {
  /** The database of the records: a suite database's TypeORM module, or null for an app without TypeORM. */
  typeOrm: DynamicModule | null;
  options: JudgmentModuleOptions;
  extras?: JudgmentModuleExtras;
  /** The root module to import instead of `JudgmentModule.forRoot({ ...options, ...extras })`. */
  root?: DynamicModule;
  /** Classes given to JudgmentModule.forFeature() (default RefundAbuse and NoteCheck). */
  judgments?: Function[];
  /** Import EventEmitterModule.forRoot() and listen to every event (default true). */
  events?: boolean;
  imports?: ModuleMetadata['imports'];
  providers?: Provider[];
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

/** A started app, what it captured, and its records. */
export class Harness {
  constructor(
    readonly app: INestApplication,
    readonly captured: Captured,
    private readonly dataSourceName?: string,
  ) {}

  get judge(): Judge {
    return this.app.get(Judge);
  }

  get dataSource(): DataSource {
    return this.app.get<DataSource>(getDataSourceToken(this.dataSourceName));
  }

  /** Every record, oldest first, read through the package's entity. */
  records(): Promise<AssessmentRecord[]> {
    return this.dataSource.getRepository(AssessmentRecord).find({ order: { id: 'ASC' } });
  }

  close(): Promise<void> {
    return this.app.close();
  }
}

/** Compiles an app around JudgmentModule (not yet initialised), capturing its logs and events. */
export async function compileApp(setup: AppSetup): Promise<Harness> {
  const captured = new Captured();
  const events = setup.events ?? true;
  let builder = Test.createTestingModule({
    imports: [
      ...(setup.typeOrm ? [setup.typeOrm] : []),
      ...(events ? [EventEmitterModule.forRoot()] : []),
      setup.root ?? JudgmentModule.forRoot({ ...setup.options, ...setup.extras }),
      JudgmentModule.forFeature(setup.judgments ?? [RefundAbuse, NoteCheck]),
      ...(setup.imports ?? []),
    ],
    providers: [
      { provide: CAPTURED, useValue: captured },
      ...(events ? [EventRecorder] : []),
      ...(setup.providers ?? []),
    ],
  });
  if (setup.override) builder = setup.override(builder);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({ logger: new CapturingLogger(captured) });
  const dataSourceName = typeof setup.extras?.dataSource === 'string' ? setup.extras.dataSource : undefined;
  return new Harness(app, captured, dataSourceName);
}

/** Compiles and initialises (bootstraps) an app around JudgmentModule. */
export async function startApp(setup: AppSetup): Promise<Harness> {
  const harness = await compileApp(setup);
  await harness.app.init();
  return harness;
}

/** Everything an error says, its cause chain and hidden properties included. */
export function render(value: unknown): string {
  return inspect(value, { depth: null, showHidden: true, getters: true });
}

/** Awaits a promise that must reject, and returns what it rejected with. */
export async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject, but it resolved.');
}
