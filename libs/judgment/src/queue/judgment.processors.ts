import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy, Optional } from '@nestjs/common';
import { WorkerHost } from '@nestjs/bullmq';
import { EventEmitterReadinessWatcher } from '@nestjs/event-emitter';
import { DelayedError, type Job, type Queue, UnrecoverableError, Worker } from 'bullmq';
import { Assessment } from '../assessment/assessment';
import { EngineManager } from '../engines/engine.manager';
import { QUEUED_LIMITS } from '../engines/engine.interface';
import type { Judgment } from '../definition/judgment.decorator';
import type { Outcome } from '../definition/outcome';
import {
  AssessmentNotRecorded,
  EngineFailed,
  EngineCallInterrupted,
  EngineRateLimitDeferred,
  NoDefaultDecision,
  SubjectNotFound,
  UnknownDecision,
  UnknownJudgmentName,
  UnrebuildableAssessment,
} from '../errors';
import { Judge } from '../judge/judge.service';
import { type PaidAnswers, paidAnswersOf } from '../judge/judge.types';
import { AwaitingReview, type ReviewReason, decidedOutcome, reviewReasonOf } from '../assessment/awaiting-review';
import type { LinkCascade } from '../recording/record-link';
import { plainPaidAnswers } from '../judge/paid-answers';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions, ResolvedQueueOptions } from '../judgment.options';
import { JudgmentLogger, describeError } from '../logging/judgment.logger';
import { ReviewDeadlines } from '../review/review-deadlines.service';
import { SpanKind, contextFromCarrier, inSpan, traceCarrier } from '../telemetry/judgment.tracing';
import { type AssessRun, type AssessStep, JudgmentJobs } from './judgment.jobs';
import { isOutage, outageWait } from './outage';
import { AssessQueues } from './assess-queues';
import { DECIDE_QUEUE, JUDGMENT_WORKERS_DISABLED } from './queue.constants';
import {
  type AssessCheckpoint,
  type AnsweredColumns,
  type AssessJobData,
  type DecideJobData,
  type ExpireJobData,
  KEEP_JOBS,
  type OutageMarks,
  decideJobId,
  escalatedJobId,
  messagingAttributes,
} from './queue.jobs-data';

/** What every processor is given: the queue options, the jobs it runs, and when its worker starts. */
@Injectable()
export class ProcessorContext {
  readonly options: ResolvedQueueOptions;
  /** Resolves once the app's event listeners are subscribed; null without EventEmitterModule. */
  readonly readiness: EventEmitterReadinessWatcher | null;
  /** True in the `judgment` command line's context (JUDGMENT_WORKERS_DISABLED): no command consumes a job. */
  readonly disabled: boolean;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    readonly jobs: JudgmentJobs,
    readonly logger: JudgmentLogger,
    /** The Engines, whose retry waits are cancelled before a worker closes (so closing never waits them out). */
    readonly engines: EngineManager,
    @Optional() readiness?: EventEmitterReadinessWatcher,
    @Optional() @Inject(JUDGMENT_WORKERS_DISABLED) disabled?: boolean,
  ) {
    this.options = options.queue;
    this.readiness = readiness ?? null;
    this.disabled = disabled === true;
  }
}

/**
 * What both processors share: the worker starts only once the app's event listeners are subscribed (so no event of
 * a job waiting at startup is lost), and never where workers are disabled; its errors (a lost connection, a lock it
 * could not renew) are logged instead of crashing the process, and it closes in onModuleDestroy, so running jobs
 * finish, and chain their decide job, before the queues close in onApplicationShutdown.
 */
@Injectable()
abstract class JudgmentWorkerHost extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly options: ResolvedQueueOptions;
  protected readonly jobs: JudgmentJobs;
  protected readonly logger: JudgmentLogger;

  constructor(protected readonly context: ProcessorContext) {
    super();
    this.options = context.options;
    this.jobs = context.jobs;
    this.logger = context.logger;
  }

  onApplicationBootstrap(): void {
    this.start(this.worker);
  }

  async onModuleDestroy(): Promise<void> {
    await this.close(this.worker);
  }

  /** Starts `worker` once the app's event listeners are subscribed (never where workers are disabled). */
  protected start(worker: Worker): void {
    if (this.context.disabled) return;
    const report = (error: Error) =>
      this.logger.warn('Judgment queue worker error.', { queue: worker.name, exception: describeError(error) });
    worker.on('error', report);
    const start = () => {
      if (!worker.closing) worker.run().catch(report);
    };
    const { readiness } = this.context;
    if (readiness) void readiness.waitUntilReady().then(start, report);
    else start();
  }

  protected async close(worker: Worker): Promise<void> {
    this.context.engines.shutdown();
    // A job the rate limit refuses while this worker closes (or just before) is given back to the queue, and BullMQ
    // would then wait the whole pause in this worker (a wait close() does not cancel) before close() resolves. Once
    // closing, no rate-limit wait: the pause is kept on the queue, for the other workers.
    worker.opts.maximumRateLimitDelay = 0;
    await worker.close();
  }

  /** Runs a job's work in a CONSUMER span, child of the trace context the job's data carries. */
  protected inJobSpan<T>(job: Job<AssessJobData | DecideJobData>, work: () => Promise<T>): Promise<T> {
    const attributes = () => messagingAttributes(job.queueName, job.id, 'process', job.data.judgment.judgment);
    const options = { kind: SpanKind.CONSUMER, attributes, parent: contextFromCarrier(job.data.trace) };
    return inSpan(`process ${job.queueName}`, options, work);
  }

  /**
   * Runs a job's work. An outage of PostgreSQL or Redis does not spend one of the job's attempts: the job is put
   * back, delayed with a growing wait, until `outage.retryFor` ms have passed since the outage began (then the error
   * fails the attempt as usual). A retry wait the shutdown cancelled puts the job back at once, for another worker.
   */
  protected async ridingOutages<T>(job: Job<OutageMarks>, token: string | undefined, work: () => Promise<T>) {
    try {
      return await work();
    } catch (error) {
      if (token === undefined) throw error;
      if (error instanceof EngineCallInterrupted) {
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      const { outage } = this.options;
      const since = job.data.outageSince ?? Date.now();
      if (!isOutage(error) || Date.now() - since > outage.retryFor) throw error;
      const retries = (job.data.outageRetries ?? 0) + 1;
      const wait = outageWait(outage, retries);
      await job.updateData({ ...job.data, outageSince: since, outageRetries: retries });
      this.logger.warn('Judgment job waits out an outage.', {
        queue: this.worker.name,
        job: job.id,
        retry: retries,
        wait_ms: wait,
        exception: describeError(error as Error),
      });
      await job.moveToDelayed(Date.now() + wait, token);
      throw new DelayedError();
    }
  }
}

/**
 * Assesses a queued Judgment through the app's Judge (the injected one, so a test's override too). A recorded
 * Assessment of a Judgment with a default Decision is chained to a decide job with a derived id. The record holds the
 * job's id: a retried or stalled job finds the answer its earlier run recorded and goes on from it (no second Engine
 * round, no second record), and cannot chain twice.
 */
@Injectable()
export class AssessProcessor extends JudgmentWorkerHost {
  /** The workers of the other connections' assess queues (this host's own worker takes the default connection's). */
  private readonly connectionWorkers: Worker[] = [];

  constructor(
    context: ProcessorContext,
    private readonly judge: Judge,
    private readonly queues: AssessQueues,
    @Inject(DECIDE_QUEUE) private readonly decideQueue: Queue,
  ) {
    super(context);
  }

  /**
   * Starts this host's worker on the default connection's queue and one more worker, with the same settings and the
   * same work, on each other connection's queue: every queue is consumed by every worker process.
   */
  override onApplicationBootstrap(): void {
    super.onApplicationBootstrap();
    if (this.context.disabled) return;
    const { opts } = this.worker;
    for (const { queue } of this.queues.all()) {
      if (queue.name === this.worker.name) continue;
      const worker = new Worker(queue.name, (job: Job<AssessJobData>, token?: string) => this.process(job, token), {
        ...opts,
        autorun: false,
      });
      this.connectionWorkers.push(worker);
      this.start(worker);
    }
  }

  override async onModuleDestroy(): Promise<void> {
    await Promise.all([super.onModuleDestroy(), ...this.connectionWorkers.map((worker) => this.close(worker))]);
  }

  process(job: Job<AssessJobData>, token?: string): Promise<AssessStep> {
    return this.inJobSpan(job, () => this.ridingOutages(job, token, () => this.assess(job)));
  }

  private async assess(job: Job<AssessJobData>): Promise<AssessStep> {
    const checkpoint = (typeof job.progress === 'object' ? job.progress : {}) as Partial<AssessCheckpoint>;
    if ('record' in checkpoint && typeof checkpoint.record === 'number') {
      await this.chainDecide(job, checkpoint.record);
      return { kind: 'recorded', record: checkpoint.record };
    }
    const judgment = await failAtOnceOn(CANNOT_RESTORE, () => this.jobs.judgment(job.data.judgment));
    const paid = 'paid' in checkpoint ? checkpoint.paid : undefined;
    let run: AssessRun;
    try {
      run = await this.assessWithinLimits(job, judgment, paid);
    } catch (error) {
      // Paid answers stay with the job, and the next run does not pay for them again: those that could not be recorded
      // are recorded, those of a round that failed part way are kept and only the other Questions asked.
      if (error instanceof AssessmentNotRecorded && error.assessment instanceof Assessment)
        await job.updateProgress({ paid: paidAnswersOf(error.assessment) } satisfies AssessCheckpoint);
      else if (error instanceof EngineFailed && error.answered)
        await job.updateProgress({ paid: plainPaidAnswers(error.answered) } satisfies AssessCheckpoint);
      throw error;
    }
    const { step, answered } = run;
    if (step.kind === 'recorded') await this.chainDecide(job, step.record, answered);
    return step;
  }

  /**
   * Assesses with the connection's rate limits deferred to the queue: when the limit (or the Engine's 429) refuses
   * the call, the job's queue (its connection's) pauses for the time given (BullMQ's manual rate limit) and the job
   * goes back to wait without counting as an attempt. A worker closed by the module's onModuleDestroy does not wait
   * the pause out.
   */
  private async assessWithinLimits(
    job: Job<AssessJobData>,
    judgment: Judgment,
    paid: PaidAnswers | undefined,
  ): Promise<AssessRun> {
    // The record holds the job's id; a job run before (its worker died, it was retried, or given back) goes on from the
    // answer an earlier run recorded, if any: the Engine is not paid twice, and no second record is written.
    const rerun = job.attemptsStarted > 1 || job.attemptsMade > 0;
    const options = { paid, tier: job.data.tier, job: { id: job.id as string, rerun } };
    if (!this.options.pauseOnRateLimit) return this.jobs.assess(this.judge, judgment, options);
    try {
      return await this.jobs.assess(this.judge, judgment, { ...options, limits: QUEUED_LIMITS });
    } catch (error) {
      if (!(error instanceof EngineRateLimitDeferred)) throw error;
      // Never 0: a 429 saying `retry-after: 0` would otherwise send every worker straight back to the Engine.
      await this.queues.named(job.queueName).rateLimit(Math.max(MIN_RATE_LIMIT_PAUSE_MS, error.retryAfterMs));
      throw Worker.RateLimitError();
    }
  }

  private async chainDecide(job: Job<AssessJobData>, record: number, answered?: AnsweredColumns): Promise<void> {
    const data: DecideJobData = { record, answered, judgment: job.data.judgment, trace: traceCarrier() };
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
 * Decides a recorded Assessment from its record with the Judgment's default Decision; never asks the Engine. A cascade
 * tier's Review Outcome queues an assess job for the next tier on its connection's queue (an id per dispatch and
 * tier, so a retried decide job queues it once), chained to its own decide job. What no retry can mend (an
 * UnrebuildableAssessment, a deleted Subject, a Judgment no longer registered or without a default Decision) fails
 * the job at once.
 */
@Injectable()
export class DecideProcessor extends JudgmentWorkerHost {
  constructor(
    context: ProcessorContext,
    private readonly queues: AssessQueues,
  ) {
    super(context);
  }

  /** Queues the next tier's assess job; the case awaits that tier (not a person, and not an automatic Outcome). */
  private escalation(job: Job<DecideJobData>): LinkCascade['escalate'] {
    return async (_decision, from) => {
      const queue = this.queues.forConnection(from.to.connection);
      const jobId = escalatedJobId(job.id as string, from.to.tier);
      const data: AssessJobData = {
        judgment: job.data.judgment,
        tier: { index: from.to.tier - 1, escalatedFrom: from.record?.id ?? null },
        trace: traceCarrier(),
      };
      await queue.add(job.name, data, {
        jobId,
        attempts: this.options.attempts,
        backoff: this.options.backoff,
        priority: job.opts.priority,
        ...KEEP_JOBS,
      });
      const reason = { cause: 'band' as const, text: `${from.to.text} Queued as job ${jobId}.` };
      return new AwaitingReview(from.outcome, reason, from.record?.id ?? null);
    };
  }

  process(
    job: Job<DecideJobData>,
    token?: string,
  ): Promise<{ record: number; outcome: Outcome; review: ReviewReason | null }> {
    return this.inJobSpan(job, () =>
      this.ridingOutages(job, token, async () => {
        const judgment = await failAtOnceOn(CANNOT_RESTORE, () => this.jobs.judgment(job.data.judgment));
        const { record, answered } = job.data;
        const escalate = this.escalation(job);
        const decided = await failAtOnceOn(CANNOT_DECIDE, () => this.jobs.decide(record, judgment, answered, escalate));
        return { record: job.data.record, outcome: decidedOutcome(decided), review: reviewReasonOf(decided) };
      }),
    );
  }
}

/** The shortest pause of the queue after a rate-limit refusal. */
const MIN_RATE_LIMIT_PAUSE_MS = 250;

/**
 * Expires a record in Review when its deadline job comes due (a delayed job per record, added when the record entered
 * Review). A job that runs before the deadline (clocks differ) is moved back to the deadline; one whose record was
 * resolved meanwhile ends with nothing to do. An unknown or changed Decision fails the job at once.
 */
@Injectable()
export class ReviewExpiryProcessor extends JudgmentWorkerHost {
  constructor(
    context: ProcessorContext,
    private readonly deadlines: ReviewDeadlines,
  ) {
    super(context);
  }

  async process(job: Job<ExpireJobData>, token?: string): Promise<{ record: number; expired: boolean }> {
    const now = new Date();
    const due = await this.deadlines.deadlineOf(job.data.record);
    if (due !== null && due.getTime() > now.getTime()) {
      await job.moveToDelayed(due.getTime() + 1, token);
      throw new DelayedError();
    }
    const expired = await failAtOnceOn([UnknownDecision], () => this.deadlines.expire(job.data.record, now));
    return { record: job.data.record, expired: expired !== null };
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
