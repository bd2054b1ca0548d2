import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { BullModule, Processor, getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { JUDGMENT_LIMIT_REDIS, RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions, ResolvedQueueOptions } from '../judgment.options';
import { JUDGMENT_DISPATCH } from '../judge/judge.types';
import { REVIEW_DEADLINE_SCHEDULER } from '../recording/review-deadline.scheduler';
import { AssessProcessor, DecideProcessor, ProcessorContext, ReviewExpiryProcessor } from './judgment.processors';
import { AssessQueues } from './assess-queues';
import { ASSESS_QUEUE, ASSESS_QUEUES, DECIDE_QUEUE, REVIEW_QUEUE } from './queue.constants';
import { AssessQueueLimit, QueueLimitRedis } from './queue-limits';
import { QueuedDispatch } from './queued.dispatcher';
import { QueuedReviewDeadlines } from './review-deadline.jobs';

/**
 * What JudgmentModule adds when the queue is enabled: the assess, decide and review queues (on the app's BullModule.forRoot
 * connection under `configKey`; AssessQueues opens the other connections' assess queues beside the default one's), the queued dispatch strategy and, unless `runWorkers` is false, the processors
 * (whose workers stay idle where JUDGMENT_WORKERS_DISABLED is provided, as in the `judgment` command line).
 * JudgmentModule loads this file only then, so an app with the queue off needs neither bullmq nor Redis.
 */
export function judgmentQueue(options: ResolvedQueueOptions): { imports: DynamicModule[]; providers: Provider[] } {
  const { assessQueue, decideQueue, reviewQueue, configKey } = options;
  const providers: Provider[] = [
    { provide: ASSESS_QUEUE, useExisting: getQueueToken(assessQueue) },
    { provide: DECIDE_QUEUE, useExisting: getQueueToken(decideQueue) },
    { provide: REVIEW_QUEUE, useExisting: getQueueToken(reviewQueue) },
    { provide: JUDGMENT_DISPATCH, useClass: QueuedDispatch },
    { provide: REVIEW_DEADLINE_SCHEDULER, useClass: QueuedReviewDeadlines },
    AssessQueues,
    { provide: ASSESS_QUEUES, useExisting: AssessQueues },
    AssessQueueLimit,
    {
      // A Redis connection of its own for the connections' limits, only when one has limits and no limiter.redis.
      provide: JUDGMENT_LIMIT_REDIS,
      useFactory: (resolved: ResolvedJudgmentOptions, queue: Queue) => QueueLimitRedis.for(resolved, queue),
      inject: [RESOLVED_JUDGMENT_OPTIONS, ASSESS_QUEUE],
    },
  ];
  if (options.runWorkers) {
    providers.push(
      ProcessorContext,
      processorOf(AssessProcessor, assessQueue, options, options.concurrency),
      processorOf(DecideProcessor, decideQueue, options, options.decideConcurrency),
      processorOf(ReviewExpiryProcessor, reviewQueue, options, options.concurrency),
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

/**
 * The processor class bound to its queue: @Processor's queue name and worker options are fixed when a class is
 * decorated, and the names come from the options, so each app gets a subclass (injected like its base).
 */
function processorOf<T extends Type>(base: T, queue: string, options: ResolvedQueueOptions, concurrency: number): T {
  const bound = class extends base {};
  Object.defineProperty(bound, 'name', { value: `${base.name}(${queue})` });
  const worker = { ...options.workerOptions, concurrency, autorun: false };
  Processor({ name: queue, configKey: options.configKey }, worker)(bound);
  return bound;
}
