// JudgmentModule (SPEC §4): forRoot / forRootAsync, the static extras (dataSource; isGlobal refused), forFeature and the
// registry, Decisions as overridable providers, the app owning every forRoot, and configuration errors at startup.
import { type DynamicModule, Injectable, Module, type Type } from '@nestjs/common';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  type Assessment,
  AssessmentRecord,
  Decision,
  Judge,
  Judgment,
  JudgmentModule,
  Unassessed,
  judgmentEntities,
  judgmentMigrations,
} from 'nestjs-judgment';
import { EngineManager } from 'nestjs-judgment/drivers';
import { JudgmentRegistry } from '../../libs/judgment/src/registry/judgment.registry';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import { DuplicateJudgmentName, EngineNotConfigured, InvalidConfiguration } from 'nestjs-judgment/testing';
import {
  DB_KINDS,
  type Harness,
  NoteCheck,
  Refund,
  RefundAbuse,
  RefundDecision,
  RefundOutcome,
  SuiteDatabase,
  aRefund,
  compileApp,
  decisionRequests,
  jevConnection,
  jevOptions,
  rejectionOf,
  startApp,
  startSimulator,
  typeOrmRoot,
} from './support';

let db: SuiteDatabase;
let sim: JevSimulator;
let url: string;

beforeAll(async () => {
  db = await SuiteDatabase.create('judgment_judge_module');
  ({ sim, url } = await startSimulator());
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

let harness: Harness | undefined;

beforeEach(async () => {
  await db.reset();
  sim.clearLog().clearFaults();
});

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const sqlite = () => typeOrmRoot('sqlite', ':memory:');

@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], name: 'strict-refund' })
class StrictRefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(): RefundOutcome {
    return RefundOutcome.Reject;
  }
}

@Decision({ outcomes: RefundOutcome, review: [], name: 'always-approve' })
class AlwaysApprove implements Decision<RefundAbuse, RefundOutcome> {
  decide(): RefundOutcome {
    return RefundOutcome.Approve;
  }
}

/** Another Judgment class claiming NoteCheck's name. */
@Judgment({ name: 'note-check' })
class ImpostorNoteCheck extends NoteCheck {}

@Judgment({ name: 'nowhere-check', engine: 'nowhere' })
class NowhereCheck extends NoteCheck {}

/** A feature module's service that needs the Judge. */
@Injectable()
class RefundService {
  constructor(readonly judge: Judge) {}
}

@Module({ providers: [RefundService] })
class RefundsModule {}

/** A configuration service, as @nestjs/config would provide one. */
@Injectable()
class AppConfig {
  readonly values: Record<string, unknown> = {};
  get<T>(name: string): T {
    return this.values[name] as T;
  }
}

/** Every module class reachable from a dynamic module's imports. */
function modulesIn(root: DynamicModule): string[] {
  const names: string[] = [];
  const visit = (entry: unknown) => {
    if (!entry || (typeof entry !== 'object' && typeof entry !== 'function')) return;
    const dynamic = entry as DynamicModule;
    const cls = typeof entry === 'function' ? (entry as Type) : dynamic.module;
    if (cls) names.push(cls.name);
    if (typeof entry === 'object') for (const child of dynamic.imports ?? []) visit(child);
  };
  visit(root);
  return names;
}

describe('JudgmentModule', () => {
  it('forRoot provides Judge and EngineManager to the importing module', async () => {
    @Injectable()
    class Consumer {
      constructor(
        readonly judge: Judge,
        readonly engines: EngineManager,
      ) {}
    }
    harness = await startApp({ typeOrm: sqlite(), options: jevOptions(url), providers: [Consumer] });

    const consumer = harness.app.get(Consumer);
    await consumer.judge.assess(new NoteCheck('Refund please.'));

    expect(consumer.engines.defaultConnectionName()).toBe('jev');
    expect(await harness.records()).toHaveLength(1);
  });

  it('forRootAsync takes its options from a ConfigService-like provider through imports, inject and useFactory', async () => {
    @Module({ providers: [AppConfig], exports: [AppConfig] })
    class AppConfigModule {}
    harness = await startApp({
      typeOrm: sqlite(),
      options: {},
      root: JudgmentModule.forRootAsync({
        imports: [AppConfigModule],
        inject: [AppConfig],
        useFactory: async (config: AppConfig) => {
          Object.assign(config.values, { url, throwOnFailure: false });
          await Promise.resolve();
          return { engines: { jev: jevConnection(config.get('url')) }, throwOnFailure: config.get('throwOnFailure') };
        },
      }),
    });
    sim.fail({ status: 500 });

    const result = await harness.judge.assess(new NoteCheck('Refund please.'));

    expect(result).toBeInstanceOf(Unassessed); // throwOnFailure came from the factory
    expect(decisionRequests(sim)).toHaveLength(1);
  });

  it("the module's core is global: other modules inject Judge", async () => {
    harness = await startApp({ typeOrm: sqlite(), options: jevOptions(url), imports: [RefundsModule] });

    const assessment = await harness.app.get(RefundService).judge.assess(new NoteCheck('Refund please.'));
    expect(assessment.provenance.engine).toBe('jev');
  });

  it.each([true, false])('refuses isGlobal: %p with InvalidConfiguration: the core is always global', (isGlobal) => {
    const root = () => JudgmentModule.forRoot({ ...jevOptions(url), isGlobal } as never);
    expect(root).toThrow(InvalidConfiguration);
    expect(root).toThrow(/no longer takes isGlobal.*Remove isGlobal/);
  });

  describe.each(DB_KINDS)('the dataSource extra on %s', (kind) => {
    it('records through the named TypeORM data source, not the default one', async () => {
      const defaultDataSource = TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: [Refund],
        synchronize: true,
      });
      harness = await startApp({
        typeOrm: typeOrmRoot(kind, db.name, { name: 'audit' }),
        imports: [defaultDataSource],
        options: jevOptions(url),
        extras: { dataSource: 'audit' },
      });
      const refund = await harness.dataSource.getRepository(Refund).save(aRefund());

      await harness.judge.assess(new RefundAbuse(refund));

      const [record] = await harness.records();
      expect(record).toMatchObject({ judgment: 'refund-abuse', subjectType: 'Refund', subjectId: String(refund.id) });
      const defaultTables = await harness.app
        .get<DataSource>(getDataSourceToken())
        .query("SELECT name FROM sqlite_master WHERE type = 'table'");
      const names = defaultTables.map((table: { name: string }) => table.name);
      expect(names).toContain('refunds');
      expect(names).not.toContain('judgment_assessments');
    });
  });

  it('forFeature registers Judgments and Decisions by name in the one registry of the app', async () => {
    @Module({ imports: [JudgmentModule.forFeature([NoteCheck, StrictRefundDecision])] })
    class NotesModule {}
    harness = await startApp({
      typeOrm: sqlite(),
      options: jevOptions(url),
      judgments: [RefundAbuse],
      imports: [NotesModule],
    });

    const registry = harness.app.get(JudgmentRegistry);
    expect(registry.judgment('refund-abuse')).toBe(RefundAbuse);
    expect(registry.judgment('note-check')).toBe(NoteCheck);
    expect(registry.decision('RefundDecision')).toBe(RefundDecision); // a Judgment's default Decision comes along
    expect(registry.decision('strict-refund')).toBe(StrictRefundDecision);
    expect(harness.app.get(RefundDecision, { strict: false })).toBeInstanceOf(RefundDecision);
  });

  it('fails at startup with DuplicateJudgmentName when two Judgments share a name', async () => {
    const error = await rejectionOf(
      compileApp({ typeOrm: sqlite(), options: jevOptions(url), judgments: [NoteCheck, ImpostorNoteCheck] }),
    );

    expect(error).toBeInstanceOf(DuplicateJudgmentName);
    expect(error.message).toContain('"note-check"');
  });

  it('lets tests replace a Decision with overrideProvider', async () => {
    harness = await startApp({
      typeOrm: sqlite(),
      options: jevOptions(url),
      override: (builder) => builder.overrideProvider(RefundDecision).useValue(new AlwaysApprove()),
    });
    const refund = aRefund({ explanation: 'Obviously abusive. [[abusive=0.99]]' });

    const assessment: Assessment<RefundAbuse> = await harness.judge.assess(new RefundAbuse(refund));

    expect(await assessment.outcome()).toBe(RefundOutcome.Approve);
    const [record] = await harness.records();
    expect([record.decision, record.outcome]).toEqual(['always-approve', 'approve']);
  });

  it('never calls the forRoot of TypeORM, BullMQ, EventEmitter or CacheModule: the app owns them', () => {
    const root = JudgmentModule.forRoot(jevOptions(url));

    const modules = modulesIn(root);

    expect(modules).toContain('TypeOrmModule'); // forFeature, so autoLoadEntities can find AssessmentRecord
    for (const owned of ['TypeOrmCoreModule', 'EventEmitterModule', 'BullModule', 'CacheModule', 'ConfigModule']) {
      expect(modules).not.toContain(owned);
    }
  });

  it('works without EventEmitterModule: nothing is announced, everything is recorded', async () => {
    harness = await startApp({ typeOrm: sqlite(), options: jevOptions(url), events: false });

    await harness.judge.assess(new NoteCheck('Refund please.'));

    expect(await harness.records()).toHaveLength(1);
    expect(harness.captured.messages()).toEqual(['Judgment assessed.']);
  });

  it('works without autoLoadEntities: an app lists judgmentEntities and runs judgmentMigrations', async () => {
    expect(judgmentEntities).toContain(AssessmentRecord);
    harness = await startApp({
      typeOrm: TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: judgmentEntities,
        migrations: judgmentMigrations,
        migrationsRun: true,
      }),
      options: jevOptions(url),
    });

    await harness.judge.assess(new NoteCheck('Refund please.'));

    expect(await harness.records()).toHaveLength(1);
  });

  it('fails at startup when the data source does not know AssessmentRecord, saying how to fix it', async () => {
    const compiled = await compileApp({
      typeOrm: TypeOrmModule.forRoot({ type: 'better-sqlite3', database: ':memory:', entities: [Refund] }),
      options: jevOptions(url),
    });

    const error = await rejectionOf(compiled.app.init());

    expect(error).toBeInstanceOf(InvalidConfiguration);
    expect(error.message).toContain('judgmentEntities');
    await compiled.close();
  });
});

describe('configuration errors', () => {
  it('fails app.init() with EngineNotConfigured when the default connection has no key and a remote url', async () => {
    const remote = 'https://jev.example.com';
    const compiled = await compileApp({
      typeOrm: sqlite(),
      options: jevOptions(url, { engines: { jev: jevConnection(remote, { key: null }) } }),
    });

    const error = await rejectionOf(compiled.app.init());

    expect(error).toBeInstanceOf(EngineNotConfigured);
    expect(error.message).toContain('TYPESAFE_API_KEY');
    await compiled.close();
  });

  it('fails at startup when a registered Judgment names an unknown connection', async () => {
    const compiled = await compileApp({
      typeOrm: sqlite(),
      options: jevOptions(url),
      judgments: [NoteCheck, NowhereCheck],
    });

    const error = await rejectionOf(compiled.app.init());

    expect(error).toBeInstanceOf(EngineNotConfigured);
    expect(error.message).toContain('"nowhere"');
    await compiled.close();
  });

  it('fails another connection raw before its first call: no request, no record, no AssessmentFailed', async () => {
    harness = await startApp({
      typeOrm: sqlite(),
      options: jevOptions(url, {
        throwOnFailure: false,
        engines: { laya: { driver: 'jev', url, model: 'english', requireKey: true } },
      }),
    });

    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Refund please.', { engine: 'laya' })));

    expect(error).toBeInstanceOf(EngineNotConfigured);
    expect(error.message).toContain('"laya"');
    expect(decisionRequests(sim)).toHaveLength(0);
    expect(await harness.records()).toHaveLength(0);
    expect(harness.captured.trail).toEqual([]);
  });
});
