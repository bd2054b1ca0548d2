import { type DynamicModule, Global, Module, type Provider, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { AssessmentCache } from './cache/assessment.cache';
import { Calibration } from './calibration/calibration.service';
import { JudgmentChecks } from './checks/judgment-checks.service';
import { isDecision } from './decision/decision.decorator';
import { judgmentMetadata } from './definition/judgment.decorator';
import { JudgmentRegistry, isJudgmentClass } from './registry/judgment.registry';
import type { Engine } from './engines/engine.interface';
import { EngineManager } from './engines/engine.manager';
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
import { AuditSampler } from './recording/audit.sampler';
import { CalibrationGuard } from './recording/calibration.guard';
import { Recorder } from './recording/recorder';
import { AssessmentRecords } from './records/assessment-records.service';
import { RecordQueries } from './records/record-queries.service';
import { RecordRetention } from './records/record-retention.service';
import { ReviewBacklogGauge } from './records/review-backlog.gauge';
import { Replay } from './records/replay.service';
import { ResolutionPolicyHost } from './review/resolution-policy';
import { ReviewAccess } from './review/review-access';
import { ReviewClaims } from './review/review-claims.service';
import { ReviewDeadlines } from './review/review-deadlines.service';
import { ReviewResolver } from './review/review-resolver.service';
import { JudgmentStartupCheck } from './judgment.startup';
import { InlineDispatch } from './queue/inline.dispatcher';
import { JudgmentJobs } from './queue/judgment.jobs';

/** Holds the one registry of an app; a constant module so every import shares it. */
@Global()
@Module({ providers: [JudgmentRegistry], exports: [JudgmentRegistry] })
export class JudgmentRegistryModule {}

/** Registers Judgments and Decisions of one feature module. */
@Module({})
export class JudgmentFeatureModule {}

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
  AuditSampler,
  Replay,
  RecordQueries,
  RecordRetention,
  ReviewBacklogGauge,
  ResolutionPolicyHost,
  ReviewAccess,
  ReviewResolver,
  ReviewClaims,
  ReviewDeadlines,
  AssessmentRecords,
  AssessmentCache,
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
      for (const cls of engineClasses(options)) engines.set(cls, await moduleRef.create(cls));
      return new EngineManager(options, (cls) => engines.get(cls) as Engine, limitRedis?.client ?? null, logger);
    },
    inject: [RESOLVED_JUDGMENT_OPTIONS, ModuleRef, JudgmentLogger, { token: JUDGMENT_LIMIT_REDIS, optional: true }],
  },
];

const EXPORTS = [Judge, EngineManager, RecordWriter, AssessmentRecords, Calibration, RESOLVED_JUDGMENT_OPTIONS];

/**
 * The module: `JudgmentModule.forRoot(options)` (or `forRootAsync`) once in the app, and
 * `JudgmentModule.forFeature([Judgments..., Decisions...])` wherever Judgments are declared. The app owns TypeORM,
 * EventEmitter and BullMQ: it imports their forRoot; this module only registers features with them.
 */
@Module({})
export class JudgmentModule extends JudgmentConfigurableModule {
  static forRoot(options: typeof JUDGMENT_OPTIONS_TYPE): DynamicModule {
    return withServices(super.forRoot(options), options);
  }

  static forRootAsync(options: typeof JUDGMENT_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withServices(super.forRootAsync(options), options);
  }

  /** Registers Judgment and Decision classes by name; Decisions become providers, so tests can override them. */
  static forFeature(classes: Function[]): DynamicModule {
    const decisions = new Set<Type>();
    for (const cls of classes) {
      if (isDecision(cls)) decisions.add(cls as Type);
      else if (isJudgmentClass(cls)) {
        const decision = judgmentMetadata(cls).decision;
        if (decision && isDecision(decision)) decisions.add(decision);
      }
    }
    const registration: Provider = {
      provide: Symbol(`JudgmentFeature(${classes.map((c) => c.name).join(', ')})`),
      useFactory: (registry: JudgmentRegistry) => registry.register(classes),
      inject: [JudgmentRegistry],
    };
    return {
      module: JudgmentFeatureModule,
      imports: [JudgmentRegistryModule],
      providers: [registration, ...decisions],
      exports: [...decisions],
    };
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
    // Global like @nestjs/typeorm's core: every module (a feature module first) injects Judge and the services.
    global: true,
    imports: [...(definition.imports ?? []), JudgmentRegistryModule, ...typeorm, ...queue.imports],
    providers: [
      ...(definition.providers ?? []),
      { provide: JUDGMENT_EXTRAS, useValue: resolved },
      dataSourceProvider(resolved.dataSource),
      ...SERVICES,
      ...queue.providers,
    ],
    exports: [...(definition.exports ?? []), ...EXPORTS, JudgmentRegistryModule],
  };
}
