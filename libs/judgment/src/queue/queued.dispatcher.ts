import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Judgment } from '../definition/judgment.decorator';
import type { DispatchOptions, DispatchStrategy } from '../judge/judge.types';
import { SpanKind, inSpan, traceCarrier } from '../telemetry/judgment.tracing';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions, ResolvedQueueOptions } from '../judgment.options';
import { JudgmentJobs } from './judgment.jobs';
import { AssessQueues } from './assess-queues';
import { type AssessJobData, KEEP_JOBS, assessJobId, messagingAttributes } from './queue.jobs-data';

/**
 * Dispatches on BullMQ: one assess job per Judgment (named after the Judgment), with the configured attempts and
 * backoff, on the assess queue of the Engine connection the Judgment asks. `options.queue` sends it to another assess
 * queue on the same Redis connection instead, for the workers an app runs there.
 */
@Injectable()
export class QueuedDispatch implements DispatchStrategy {
  private readonly options: ResolvedQueueOptions;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    private readonly queues: AssessQueues,
    private readonly jobs: JudgmentJobs,
  ) {
    this.options = options.queue;
  }

  /** Queues the assess job in a PRODUCER span whose context travels in the job's data. */
  async dispatch(judgment: Judgment, options: DispatchOptions): Promise<string> {
    const payload = this.jobs.payload(judgment);
    const queue = options.queue === undefined ? this.queues.forJudgment(judgment) : this.queues.named(options.queue);
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
}
