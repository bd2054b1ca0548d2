import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { BullModule, Processor, getQueueToken } from '@nestjs/bullmq';
import { EventEmitterReadinessWatcher } from '@nestjs/event-emitter';
import type { Queue } from 'bullmq';
import { Judge } from '../judge/judge.service';
import { JUDGMENT_DISPATCH } from '../judge/judge.types';
import { JudgmentLogger } from '../logging/judgment.logger';
import { JudgmentJobs } from './judgment.jobs';
import { EngineManager } from '../engines/engine.manager';
import { AssessProcessor, DecideProcessor, type WorkerStart } from './judgment.processors';
import { JUDGMENT_WORKERS_DISABLED } from './queue.constants';
import type { ResolvedQueueOptions } from './queue.options';
import { QueuedDispatch } from './queued.dispatcher';

/**
 * What JudgmentModule adds when the queue is enabled: the assess and decide queues (on the app's BullModule.forRoot
 * connection under `configKey`), the queued dispatch strategy and, unless `runWorkers` is false, the two processors
 * (whose workers stay idle where JUDGMENT_WORKERS_DISABLED is provided, as in the `judgment` command line).
 * JudgmentModule loads this file only then, so an app with the queue off needs neither bullmq nor Redis.
 */
export function judgmentQueue(options: ResolvedQueueOptions): { imports: DynamicModule[]; providers: Provider[] } {
  const { assessQueue, decideQueue, configKey } = options;
  const providers: Provider[] = [
    {
      provide: JUDGMENT_DISPATCH,
      useFactory: (queue: Queue, jobs: JudgmentJobs) => new QueuedDispatch(options, queue, jobs),
      inject: [getQueueToken(assessQueue), JudgmentJobs],
    },
  ];
  if (options.runWorkers) {
    const readiness = { token: EventEmitterReadinessWatcher, optional: true };
    const disabled = { token: JUDGMENT_WORKERS_DISABLED, optional: true };
    const start = (
      watcher: EventEmitterReadinessWatcher | undefined,
      off: boolean | undefined,
      engines: EngineManager,
    ): WorkerStart => ({
      readiness: watcher ?? null,
      disabled: off === true,
      engines,
    });
    const assess = processorOf(AssessProcessor, assessQueue, options);
    const decide = processorOf(DecideProcessor, decideQueue, options);
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
          engines: EngineManager,
        ) => new assess(options, jobs, logger, start(watcher, off, engines), queue, judge),
        inject: [JudgmentJobs, JudgmentLogger, readiness, disabled, getQueueToken(decideQueue), Judge, EngineManager],
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
    );
  }
  return {
    imports: [BullModule.registerQueue({ name: assessQueue, configKey }, { name: decideQueue, configKey })],
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
