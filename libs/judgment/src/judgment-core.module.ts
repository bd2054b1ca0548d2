import { type DynamicModule, Global, Module, type Provider, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
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
  type JudgmentModuleExtras,
  type ResolvedJudgmentExtras,
  type ResolvedJudgmentOptions,
  resolveJudgmentExtras,
  resolveJudgmentOptions,
} from './judgment.options';
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
  {
    provide: APP_RESOLUTION_POLICY,
    // Looked up once every provider is built: the app's own provider of the class (with the services of its own
    // module) when it registers one, else built through DI in this module's context (its forRootAsync imports and the
    // app's global modules); forRootAsync names the class only once its factory ran, hence a lookup, not a provider.
    useFactory:
      (options: ResolvedJudgmentOptions, moduleRef: ModuleRef): ResolutionPolicyLookup =>
      async () => {
        const cls = options.resolutionPolicy;
        if (!cls) return null;
        return (
          provided<ResolutionPolicy>(moduleRef, cls) ?? construct<ResolutionPolicy>(moduleRef, cls, 'resolutionPolicy')
        );
      },
    inject: [RESOLVED_JUDGMENT_OPTIONS, ModuleRef],
  },
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
    // CacheModule may be registered in any module of the app, and is only complete once every provider is built:
    // the cache asks for it on first use.
    useFactory: (moduleRef: ModuleRef) => () => appCacheStore(moduleRef),
    inject: [ModuleRef],
  },
  Calibration,
  Judge,
  { provide: AnswerSource, useClass: ConnectionAnswers },
  JudgmentJobs,
  JudgmentEventsPublisher,
  JudgmentLogger,
  JudgmentChecks,
  JudgmentStartupCheck,
  {
    provide: EngineManager,
    // Engine classes named as drivers are created through DI at startup, so one that cannot be built fails there.
    useFactory: async (
      options: ResolvedJudgmentOptions,
      moduleRef: ModuleRef,
      logger: JudgmentLogger,
      limitRedis: { client: object } | undefined,
    ) => {
      const engines = new Map<Type<Engine>, Engine>();
      for (const cls of engineClasses(options)) engines.set(cls, await construct<Engine>(moduleRef, cls, 'driver'));
      return new EngineManager(options, (cls) => engines.get(cls) as Engine, limitRedis?.client ?? null, logger);
    },
    inject: [RESOLVED_JUDGMENT_OPTIONS, ModuleRef, JudgmentLogger, { token: JUDGMENT_LIMIT_REDIS, optional: true }],
  },
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

/**
 * An instance of a class the options name, built through DI in this module's context; a class that cannot be built
 * (a missing dependency, a constructor that throws) is InvalidConfiguration naming the option and the class.
 */
async function construct<T>(moduleRef: ModuleRef, cls: Type<unknown>, option: string): Promise<T> {
  try {
    return (await moduleRef.create(cls)) as T;
  } catch (error) {
    throw new InvalidConfiguration(
      `The ${option} ${cls.name} could not be constructed: ${(error as Error)?.message ?? String(error)} ` +
        'Provide its dependencies (a global module, or the imports of forRootAsync), or give a class that can be built.',
      { cause: error },
    );
  }
}

/** The app's own instance of `cls` when it registers the class as a provider; null when it does not (Nest's not-found). */
function provided<T>(moduleRef: ModuleRef, cls: Type<unknown>): T | null {
  try {
    return moduleRef.get(cls, { strict: false }) as T;
  } catch (error) {
    if ((error as Error)?.constructor?.name === 'UnknownElementException') return null;
    throw error;
  }
}

/** The token `@nestjs/cache-manager` registers CacheModule's store under. */
const CACHE_MANAGER = 'CACHE_MANAGER';

/** The app's CacheModule store, or null when it registers none (only Nest's "not found" is taken as absence). */
function appCacheStore(moduleRef: ModuleRef): CacheStore | null {
  try {
    return moduleRef.get<CacheStore>(CACHE_MANAGER, { strict: false });
  } catch (error) {
    if ((error as Error)?.constructor?.name === 'UnknownElementException') return null;
    throw error;
  }
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

/** The Engine classes the connections name as their driver. */
function engineClasses(options: ResolvedJudgmentOptions): Set<Type<Engine>> {
  const classes = new Set<Type<Engine>>();
  for (const connection of Object.values(options.connections)) {
    const driver = connection?.driver;
    if (typeof driver === 'function' && typeof driver.prototype?.answer === 'function') classes.add(driver);
  }
  return classes;
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
    imports: [...(definition.imports ?? []), JudgmentRegistryModule, ...typeorm, ...queue.imports],
    providers: [
      ...(definition.providers ?? []),
      { provide: JUDGMENT_EXTRAS, useValue: resolved },
      dataSourceProvider(resolved.dataSource),
      ...SERVICES,
      ...queue.providers,
    ],
    exports: [...JUDGMENT_EXPORTS],
  };
}
