import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { WorkerHost } from '@nestjs/bullmq';
import type { EventEmitterReadinessWatcher } from '@nestjs/event-emitter';
import { type Job, type Queue, UnrecoverableError } from 'bullmq';
import type { Outcome } from '../definition/outcome';
import {
  NoDefaultDecision,
  SubjectNotFound,
  UnknownDecision,
  UnknownJudgmentName,
  UnrebuildableAssessment,
} from '../errors';
import type { Judge } from '../judge/judge.service';
import { type JudgmentLogger, describeError } from '../logging/judgment.logger';
import { SpanKind, contextFromCarrier, inSpan, traceCarrier } from '../telemetry/judgment.tracing';
import type { AssessStep, JudgmentJobs } from './judgment.jobs';
import type { ResolvedQueueOptions } from './queue.options';
import {
  type AssessCheckpoint,
  type AssessJobData,
  type DecideJobData,
  KEEP_JOBS,
  decideJobId,
  messagingAttributes,
} from './queue.jobs-data';

/** When a processor's worker starts: once the app's event listeners are subscribed (`readiness`), or never. */
export interface WorkerStart {
  readonly readiness: EventEmitterReadinessWatcher | null;
  /** True in the `judgment` command line's context (JUDGMENT_WORKERS_DISABLED): no command consumes a job. */
  readonly disabled: boolean;
}

/**
 * What both processors share: the worker starts only once the app's event listeners are subscribed (so no event of
 * a job waiting at startup is lost), and never where workers are disabled; its errors (a lost connection, a lock it
 * could not renew) are logged instead of crashing the process, and it closes in onModuleDestroy, so running jobs
 * finish, and chain their decide job, before the queues close in onApplicationShutdown.
 */
abstract class JudgmentWorkerHost extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    protected readonly options: ResolvedQueueOptions,
    protected readonly jobs: JudgmentJobs,
    private readonly logger: JudgmentLogger,
    private readonly start: WorkerStart,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    if (this.start.disabled) return;
    const report = (error: Error) =>
      this.logger.warn('Judgment queue worker error.', { queue: this.worker.name, exception: describeError(error) });
    this.worker.on('error', report);
    const start = () => {
      if (!this.worker.closing) this.worker.run().catch(report);
    };
    const { readiness } = this.start;
    if (readiness) void readiness.waitUntilReady().then(start, report);
    else start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker.close();
  }

  /** Runs a job's work in a CONSUMER span, child of the trace context the job's data carries. */
  protected inJobSpan<T>(job: Job<AssessJobData | DecideJobData>, work: () => Promise<T>): Promise<T> {
    const attributes = messagingAttributes(job.queueName, job.id, 'process', job.data.judgment.judgment);
    const options = { kind: SpanKind.CONSUMER, attributes, parent: contextFromCarrier(job.data.trace) };
    return inSpan(`process ${job.queueName}`, options, work);
  }
}

/**
 * Assesses a queued Judgment through the app's Judge (the injected one, so a test's override too). A recorded
 * Assessment of a Judgment with a default Decision is checkpointed in the job's progress and chained to a decide job
 * with a derived id: a retried or stalled job resumes at the checkpoint (no second Engine round), and cannot chain
 * twice.
 */
export class AssessProcessor extends JudgmentWorkerHost {
  constructor(
    options: ResolvedQueueOptions,
    jobs: JudgmentJobs,
    logger: JudgmentLogger,
    start: WorkerStart,
    private readonly decideQueue: Queue,
    private readonly judge: Judge,
  ) {
    super(options, jobs, logger, start);
  }

  async process(job: Job<AssessJobData>): Promise<AssessStep> {
    return this.inJobSpan(job, () => this.assess(job));
  }

  private async assess(job: Job<AssessJobData>): Promise<AssessStep> {
    const checkpoint = job.progress as Partial<AssessCheckpoint> | number;
    if (typeof checkpoint === 'object' && typeof checkpoint.record === 'number') {
      await this.chainDecide(job, checkpoint.record);
      return { kind: 'recorded', record: checkpoint.record };
    }
    const judgment = await failAtOnceOn(CANNOT_RESTORE, () => this.jobs.judgment(job.data.judgment));
    const step = await this.jobs.assess(this.judge, judgment);
    if (step.kind === 'recorded') {
      await job.updateProgress({ record: step.record } satisfies AssessCheckpoint);
      await this.chainDecide(job, step.record);
    }
    return step;
  }

  private async chainDecide(job: Job<AssessJobData>, record: number): Promise<void> {
    const data: DecideJobData = { record, judgment: job.data.judgment, trace: traceCarrier() };
    await this.decideQueue.add(job.name, data, {
      jobId: decideJobId(job.id as string),
      attempts: this.options.decideAttempts,
      backoff: this.options.backoff,
      priority: job.opts.priority,
      ...KEEP_JOBS,
    });
  }
}

/**
 * Decides a recorded Assessment from its record with the Judgment's default Decision; never asks the Engine. What no
 * retry can mend (an UnrebuildableAssessment, a deleted Subject, a Judgment no longer registered or without a default
 * Decision) fails the job at once.
 */
export class DecideProcessor extends JudgmentWorkerHost {
  async process(job: Job<DecideJobData>): Promise<{ record: number; outcome: Outcome }> {
    return this.inJobSpan(job, async () => {
      const judgment = await failAtOnceOn(CANNOT_RESTORE, () => this.jobs.judgment(job.data.judgment));
      const outcome = await failAtOnceOn(CANNOT_DECIDE, () => this.jobs.decide(job.data.record, judgment));
      return { record: job.data.record, outcome };
    });
  }
}

type ErrorClass = new (...args: any[]) => Error;

/** Errors no retry can mend when a job's Judgment is restored: a deleted Subject, a name no longer registered. */
const CANNOT_RESTORE: ErrorClass[] = [SubjectNotFound, UnknownJudgmentName];
/** Errors no retry can mend when deciding from a record. */
const CANNOT_DECIDE: ErrorClass[] = [UnrebuildableAssessment, NoDefaultDecision, UnknownJudgmentName, UnknownDecision];

/** Runs `work`; an error of one of `types` becomes BullMQ's UnrecoverableError (no retries), keeping its message. */
async function failAtOnceOn<T>(types: readonly ErrorClass[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!types.some((type) => error instanceof type)) throw error;
    const { name, message } = error as Error;
    const failure = new UnrecoverableError(`${name}: ${message}`);
    Object.defineProperty(failure, 'cause', { value: error });
    throw failure;
  }
}
