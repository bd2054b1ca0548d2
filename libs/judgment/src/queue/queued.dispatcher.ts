import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { Judgment } from '../definition/judgment.decorator';
import type { DispatchOptions, DispatchStrategy } from '../judge/judge.types';
import { SpanKind, inSpan, traceCarrier } from '../telemetry/judgment.tracing';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions, ResolvedQueueOptions } from '../judgment.options';
import { JudgmentJobs } from './judgment.jobs';
import { ASSESS_QUEUE } from './queue.constants';
import { type AssessJobData, KEEP_JOBS, assessJobId, messagingAttributes } from './queue.jobs-data';

/**
 * Dispatches on BullMQ: one assess job per Judgment (named after the Judgment), with the configured attempts and
 * backoff. `options.queue` sends it to another assess queue on the same connection, for the workers an app runs there.
 */
@Injectable()
export class QueuedDispatch implements DispatchStrategy, OnApplicationShutdown {
  private readonly otherQueues = new Map<string, Queue>();
  private readonly options: ResolvedQueueOptions;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    @Inject(ASSESS_QUEUE) private readonly assessQueue: Queue,
    private readonly jobs: JudgmentJobs,
  ) {
    this.options = options.queue;
  }

  /** Queues the assess job in a PRODUCER span whose context travels in the job's data. */
  async dispatch(judgment: Judgment, options: DispatchOptions): Promise<string> {
    const payload = this.jobs.payload(judgment);
    const queue = this.queueNamed(options.queue);
    const jobId = assessJobId(randomUUID());
    const attributes = () => messagingAttributes(queue.name, jobId, 'send', payload.judgment);
    return inSpan(`send ${queue.name}`, { kind: SpanKind.PRODUCER, attributes }, async () => {
      const data: AssessJobData = { judgment: payload, trace: traceCarrier() };
      const job = await queue.add(payload.judgment, data, {
        jobId,
        attempts: this.options.attempts,
        backoff: this.options.backoff,
        delay: options.delay,
        priority: options.priority,
        ...KEEP_JOBS,
      });
      return job.id as string;
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.otherQueues.values()].map((queue) => queue.close()));
  }

  private queueNamed(name: string | undefined): Queue {
    if (name === undefined || name === this.assessQueue.name) return this.assessQueue;
    let queue = this.otherQueues.get(name);
    if (!queue) {
      const { connection, prefix } = this.assessQueue.opts;
      queue = new Queue(name, { connection, prefix });
      this.otherQueues.set(name, queue);
    }
    return queue;
  }
}
