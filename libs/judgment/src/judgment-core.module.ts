import { type DynamicModule, Global, Module, type Provider, type Type } from '@nestjs/common';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { APP_CACHE_STORE, AssessmentCache, type CacheStore } from './cache/assessment.cache';
import { Calibration } from './calibration/calibration.service';
import { JudgmentChecks } from './checks/judgment-checks.service';
import { JudgmentRegistry } from './registry/judgment.registry';
import type { Engine } from './engines/engine.interface';
import { EngineManager } from './engines/engine.manager';
import { InvalidConfiguration } from './errors';
import { requirePeers } from './errors/peer.errors';
import { JudgmentEventsPublisher } from './events/judgment-events.publisher';
import { AnswerSource, ConnectionAnswers } from './judge/answer-source';
import { Judge } from './judge/judge.service';
import { JUDGMENT_DISPATCH } from './judge/judge.types';
import {
  JUDGMENT_DATA_SOURCE,
  JUDGMENT_EXTRAS,
  JUDGMENT_LIMIT_REDIS,
  JUDGMENT_MODULE_OPTIONS,
  RESOLVED_JUDGMENT_OPTIONS,
} from './judgment.constants';
import {
  JUDGMENT_ASYNC_OPTIONS_TYPE,
  JUDGMENT_OPTIONS_TYPE,
  JudgmentConfigurableModule,
} from './judgment.module-definition';
import {
  type EngineConnectionOptions,
  type JudgmentModuleExtras,
  type JudgmentModuleOptions,
  type ResolvedJudgmentExtras,
  type ResolvedJudgmentOptions,
  isEngineClass,
  resolveJudgmentExtras,
  resolveJudgmentOptions,
} from './judgment.options';
import { DiscoveryModule, DiscoveryService, appProvider } from './judgment.discovery';
import { NamedClass, dependencyFree, namedClassProvider } from './judgment.named-classes';
import type { DataSource } from 'typeorm';
import { JudgmentLogger } from './logging/judgment.logger';
import { AssessmentRecord } from './persistence/assessment-record.entity';
import { RecordWriter } from './persistence/record.writer';
import { declareTimeZones } from './persistence/time-columns';
import { AuditSampler } from './routing/audit.sampler';
import { CalibrationGuard } from './routing/calibration.guard';
import { DecisionRouter } from './routing/decision.router';
import { SignalGuard } from './signal/signal.guard';
import { Recorder } from './recording/recorder';
import { AssessmentRecords } from './records/assessment-records.service';
import { RecordQueries } from './records/record-queries.service';
import { RecordRetention } from './records/record-retention.service';
import { ReviewBacklogGauge } from './records/review-backlog.gauge';
import { Replay } from './records/replay.service';
import {
  APP_RESOLUTION_POLICY,
  type ResolutionPolicy,
  ResolutionPolicyHost,
  type ResolutionPolicyLookup,
} from './review/resolution-policy';
import { ReviewAccess } from './review/review-access';
import { ReviewClaims } from './review/review-claims.service';
import { ReviewDeadlines } from './review/review-deadlines.service';
import { ReviewVotes } from './review/review-votes.service';
import { ReviewBacklog } from './review/review-backlog.service';
import { ReviewResolver } from './review/review-resolver.service';
import { JudgmentStartupCheck } from './judgment.startup';
import { InlineDispatch } from './queue/inline.dispatcher';
import { JudgmentJobs } from './queue/judgment.jobs';

/** Holds the one registry of an app; a constant module so every import shares it. */
@Global()
@Module({ providers: [JudgmentRegistry], exports: [JudgmentRegistry] })
export class JudgmentRegistryModule {}

/** The services every JudgmentModule.forRoot() provides; apps inject Judge and the others by class. */
const SERVICES: Provider[] = [
  {
    provide: RESOLVED_JUDGMENT_OPTIONS,
    useFactory: resolveJudgmentOptions,
    inject: [JUDGMENT_MODULE_OPTIONS, JUDGMENT_EXTRAS],
  },
  RecordWriter,
  Recorder,
  CalibrationGuard,
  SignalGuard,
  AuditSampler,
  DecisionRouter,
  Replay,
  RecordQueries,
  RecordRetention,
  ReviewBacklogGauge,
  ResolutionPolicyHost,
  ReviewAccess,
  ReviewVotes,
  ReviewResolver,
  ReviewClaims,
  ReviewDeadlines,
  ReviewBacklog,
  AssessmentRecords,
  AssessmentCache,
  {
    provide: APP_CACHE_STORE,
    // CacheModule may be registered in any module of the app: the cache takes the store when the app starts, once
    // every provider is built.
    useFactory: (discovery: DiscoveryService) => () => appProvider<CacheStore>(discovery, CACHE_MANAGER, 'CacheModule'),
    inject: [DiscoveryService],
  },
  Calibration,
  Judge,
  { provide: AnswerSource, useClass: ConnectionAnswers },
  JudgmentJobs,
  JudgmentEventsPublisher,
  JudgmentLogger,
  JudgmentChecks,
  JudgmentStartupCheck,
];

/**
 * What the core exports to every module of the app: the services an app injects, each one a class the package's
 * entry points export (Calibration from `nestjs-judgment/calibration`, JudgmentChecks from `nestjs-judgment/testing`,
 * EngineManager from `nestjs-judgment/drivers`).
 */
export const JUDGMENT_EXPORTS = [
  Judge,
  AssessmentRecords,
  Calibration,
  ReviewBacklog,
  JudgmentChecks,
  EngineManager,
] as const;

/**
 * The core of `JudgmentModule.forRoot()`, like @nestjs/typeorm's TypeOrmCoreModule: global, so every module (a
 * feature module first) injects Judge and the other services of JUDGMENT_EXPORTS. Apps import JudgmentModule.
 */
@Global()
@Module({})
export class JudgmentCoreModule extends JudgmentConfigurableModule {
  static forRoot(options: typeof JUDGMENT_OPTIONS_TYPE): DynamicModule {
    return withServices(super.forRoot(options), options);
  }

  static forRootAsync(options: typeof JUDGMENT_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withServices(super.forRootAsync(options), options);
  }
}

/** The token `@nestjs/cache-manager` registers CacheModule's store under. */
const CACHE_MANAGER = 'CACHE_MANAGER';

/**
 * The providers of the classes the options name, each built through DI from the class given when the module is
 * declared: forRoot() names them in its options, forRootAsync() beside useFactory (`resolutionPolicy`,
 * `driverClasses`), as @nestjs/graphql's forRootAsync takes its `driver`. Their dependencies come from this module's
 * context (the app's global modules, forRootAsync's imports).
 */
function namedClassProviders(extras: JudgmentModuleExtras, resolved: ResolvedJudgmentExtras): Provider[] {
  const drivers = [...new Set([...resolved.driverClasses, ...engineClassesOf(extras as JudgmentModuleOptions)])];
  const policy = resolved.resolutionPolicy;
  const driverTokens = drivers.map((cls) => Symbol(`JudgmentDriver(${cls.name})`));
  const policyToken = Symbol(`JudgmentResolutionPolicy(${policy?.name ?? 'none'})`);
  return [
    ...drivers.map((cls, index) => namedClassProvider(driverTokens[index], cls, 'driver')),
    ...(policy ? [namedClassProvider(policyToken, policy, 'resolutionPolicy')] : []),
    {
      provide: EngineManager,
      // Engine classes named as drivers are built at startup, so one that cannot be built fails there.
      useFactory: (
        options: ResolvedJudgmentOptions,
        logger: JudgmentLogger,
        limitRedis: { client: object } | undefined,
        ...named: NamedClass<Engine>[]
      ) => {
        const engines = new Map(named.map((recipe) => [recipe.cls, recipe.build()] as const));
        for (const [connection, config] of Object.entries(options.connections)) {
          const driver = config?.driver;
          if (isEngineClass(driver) && !engines.has(driver)) {
            const recipe = dependencyFree(driver, 'driver');
            if (!recipe) {
              throw undeclared(
                `The connection ${connection} names the driver ${driver.name}, which`,
                `driverClasses: [${driver.name}]`,
              );
            }
            engines.set(driver, recipe.build());
          }
        }
        return new EngineManager(options, (cls) => engines.get(cls) as Engine, limitRedis?.client ?? null, logger);
      },
      inject: [
        RESOLVED_JUDGMENT_OPTIONS,
        JudgmentLogger,
        { token: JUDGMENT_LIMIT_REDIS, optional: true },
        ...driverTokens,
      ],
    },
    {
      provide: APP_RESOLUTION_POLICY,
      // Asked when the app starts, once every provider is built: the app's own provider of the class (with the
      // services of its own module) when it registers one, else the class built here (a class only forRootAsync's
      // factory names is built only when it needs nothing from DI).
      useFactory: (
        options: ResolvedJudgmentOptions,
        discovery: DiscoveryService,
        built: NamedClass<ResolutionPolicy> | undefined,
      ): ResolutionPolicyLookup => {
        const cls = options.resolutionPolicy;
        return async () => {
          if (!cls) return null;
          const own = appProvider<ResolutionPolicy>(discovery, cls, `The resolutionPolicy ${cls.name}`);
          if (own) return own;
          const recipe =
            cls === built?.cls
              ? built
              : dependencyFree<ResolutionPolicy>(cls as Type<ResolutionPolicy>, 'resolutionPolicy');
          if (!recipe) throw undeclared(`The resolutionPolicy ${cls.name}`, `resolutionPolicy: ${cls.name}`);
          return recipe.build();
        };
      },
      inject: [RESOLVED_JUDGMENT_OPTIONS, DiscoveryService, { token: policyToken, optional: true }],
    },
  ];
}

/**
 * A class forRootAsync()'s factory names, not given beside useFactory, that needs services from DI: DI prepares the
 * classes it builds when the module is declared, before the factory runs. `fix` is the static option that names it.
 */
function undeclared(named: string, fix: string): InvalidConfiguration {
  return new InvalidConfiguration(
    `${named} came from the factory of JudgmentModule.forRootAsync() and needs services from DI, but DI builds the ` +
      'classes the options name from those given when the module is declared. Give it beside useFactory: ' +
      `JudgmentModule.forRootAsync({ ${fix}, useFactory, ... }).`,
  );
}

/** The Engine classes forRoot()'s connections name as their driver (none for forRootAsync: its factory has them). */
function engineClassesOf(options: JudgmentModuleOptions): Type<Engine>[] {
  const engines: unknown = options.engines;
  if (engines === null || typeof engines !== 'object') return [];
  return Object.values(engines)
    .map((connection) => (connection as EngineConnectionOptions | null)?.driver)
    .filter(isEngineClass);
}

/** The app's DataSource the records live in, optional: without one persistence must be disabled. */
function dataSourceProvider(name: string | false | undefined): Provider {
  if (name === false) return { provide: JUDGMENT_DATA_SOURCE, useValue: null };
  return {
    provide: JUDGMENT_DATA_SOURCE,
    useFactory: (dataSource?: DataSource) => (dataSource ? declareTimeZones(dataSource) : null),
    inject: [{ token: getDataSourceToken(name), optional: true }],
  };
}

/** The core's providers around the options provider `definition` holds; its extras decide what is imported. */
function withServices(definition: DynamicModule, extras: JudgmentModuleExtras): DynamicModule {
  const resolved: ResolvedJudgmentExtras = resolveJudgmentExtras(extras);
  const typeorm =
    resolved.dataSource === false ? [] : [TypeOrmModule.forFeature([AssessmentRecord], resolved.dataSource)];
  const queueOptions = resolved.queue;
  // BullMQ code is required only when the queue is on, so an app without bullmq (or Redis) works with it off.
  if (queueOptions.enabled) requirePeers('The queue (queue.enabled: true)', ['@nestjs/bullmq', 'bullmq', 'ioredis']);
  const queue = queueOptions.enabled
    ? (require('./queue/queue.registration') as typeof import('./queue/queue.registration')).judgmentQueue(queueOptions)
    : { imports: [], providers: [{ provide: JUDGMENT_DISPATCH, useClass: InlineDispatch }] };
  return {
    ...definition,
    global: true,
    imports: [...(definition.imports ?? []), DiscoveryModule, JudgmentRegistryModule, ...typeorm, ...queue.imports],
    providers: [
      ...(definition.providers ?? []),
      { provide: JUDGMENT_EXTRAS, useValue: resolved },
      dataSourceProvider(resolved.dataSource),
      ...SERVICES,
      ...namedClassProviders(extras, resolved),
      ...queue.providers,
    ],
    exports: [...JUDGMENT_EXPORTS],
  };
}
