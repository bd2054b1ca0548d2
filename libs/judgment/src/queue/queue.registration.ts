import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { BullModule, Processor, getQueueToken } from '@nestjs/bullmq';
import { EventEmitterReadinessWatcher } from '@nestjs/event-emitter';
import type { Queue } from 'bullmq';
import { EngineManager } from '../engines/engine.manager';
import { Judge } from '../judge/judge.service';
import { JUDGMENT_LIMIT_REDIS, RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { JUDGMENT_DISPATCH } from '../judge/judge.types';
import { JudgmentLogger } from '../logging/judgment.logger';
import { JudgmentJobs } from './judgment.jobs';
import { REVIEW_DEADLINE_SCHEDULER } from '../recording/review-deadline.scheduler';
import { ReviewDeadlines } from '../review/review-deadlines.service';
import { AssessProcessor, DecideProcessor, ReviewExpiryProcessor, type WorkerStart } from './judgment.processors';
import { JUDGMENT_WORKERS_DISABLED } from './queue.constants';
import type { ResolvedQueueOptions } from '../judgment.options';
import { AssessQueueLimit, QueueLimitRedis } from './queue-limits';
import { QueuedDispatch } from './queued.dispatcher';
import { QueuedReviewDeadlines } from './review-deadline.jobs';

/**
 * What JudgmentModule adds when the queue is enabled: the assess, decide and review queues (on the app's BullModule.forRoot
 * connection under `configKey`), the queued dispatch strategy and, unless `runWorkers` is false, the two processors
 * (whose workers stay idle where JUDGMENT_WORKERS_DISABLED is provided, as in the `judgment` command line).
 * JudgmentModule loads this file only then, so an app with the queue off needs neither bullmq nor Redis.
 */
export function judgmentQueue(options: ResolvedQueueOptions): { imports: DynamicModule[]; providers: Provider[] } {
  const { assessQueue, decideQueue, reviewQueue, configKey } = options;
  const providers: Provider[] = [
    {
      provide: JUDGMENT_DISPATCH,
      useFactory: (queue: Queue, jobs: JudgmentJobs) => new QueuedDispatch(options, queue, jobs),
      inject: [getQueueToken(assessQueue), JudgmentJobs],
    },
    {
      provide: JUDGMENT_LIMIT_REDIS,
      useFactory: (resolved: ResolvedJudgmentOptions, queue: Queue) => QueueLimitRedis.for(resolved, queue),
      inject: [RESOLVED_JUDGMENT_OPTIONS, getQueueToken(assessQueue)],
    },
    {
      provide: AssessQueueLimit,
      useFactory: (queue: Queue, engines: EngineManager) => new AssessQueueLimit(queue, engines),
      inject: [getQueueToken(assessQueue), EngineManager],
    },
    {
      provide: REVIEW_DEADLINE_SCHEDULER,
      useFactory: (queue: Queue) => new QueuedReviewDeadlines(options, queue),
      inject: [getQueueToken(reviewQueue)],
    },
  ];
  if (options.runWorkers) {
    const readiness = { token: EventEmitterReadinessWatcher, optional: true };
    const disabled = { token: JUDGMENT_WORKERS_DISABLED, optional: true };
    const start = (
      watcher: EventEmitterReadinessWatcher | undefined,
      off: boolean | undefined,
      engines: EngineManager | null = null,
    ): WorkerStart => ({
      readiness: watcher ?? null,
      disabled: off === true,
      engines,
    });
    const assess = processorOf(AssessProcessor, assessQueue, options);
    const decide = processorOf(DecideProcessor, decideQueue, options);
    const expire = processorOf(ReviewExpiryProcessor, reviewQueue, options);
    providers.push(
      {
        provide: assess,
        useFactory: (
          jobs: JudgmentJobs,
          logger: JudgmentLogger,
          watcher: EventEmitterReadinessWatcher | undefined,
          off: boolean | undefined,
          queue: Queue,
          judge: Judge,
          ownQueue: Queue,
          engines: EngineManager,
        ) => new assess(options, jobs, logger, start(watcher, off, engines), queue, judge, ownQueue),
        inject: [
          JudgmentJobs,
          JudgmentLogger,
          readiness,
          disabled,
          getQueueToken(decideQueue),
          Judge,
          getQueueToken(assessQueue),
          EngineManager,
        ],
      },
      {
        provide: decide,
        useFactory: (
          jobs: JudgmentJobs,
          logger: JudgmentLogger,
          watcher: EventEmitterReadinessWatcher | undefined,
          off: boolean | undefined,
          engines: EngineManager,
        ) => new decide(options, jobs, logger, start(watcher, off, engines)),
        inject: [JudgmentJobs, JudgmentLogger, readiness, disabled, EngineManager],
      },
      {
        provide: expire,
        useFactory: (
          jobs: JudgmentJobs,
          logger: JudgmentLogger,
          watcher: EventEmitterReadinessWatcher | undefined,
          off: boolean | undefined,
          deadlines: ReviewDeadlines,
        ) => new expire(options, jobs, logger, start(watcher, off), deadlines),
        inject: [JudgmentJobs, JudgmentLogger, readiness, disabled, ReviewDeadlines],
      },
    );
  }
  return {
    imports: [
      BullModule.registerQueue(
        { name: assessQueue, configKey },
        { name: decideQueue, configKey },
        { name: reviewQueue, configKey },
      ),
    ],
    providers,
  };
}

/** A subclass bound to its queue: @Processor's queue name and worker options are fixed when a class is decorated. */
function processorOf<T extends Type>(base: T, queue: string, options: ResolvedQueueOptions): T {
  const bound = class extends base {};
  Object.defineProperty(bound, 'name', { value: `${base.name}(${queue})` });
  const worker = { ...options.workerOptions, concurrency: options.concurrency, autorun: false };
  Processor({ name: queue, configKey: options.configKey }, worker)(bound);
  return bound;
}
