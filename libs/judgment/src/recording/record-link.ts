import type { Type } from '@nestjs/common';
import type { Assessment, Decider, DecisionRecording } from '../assessment/assessment';
import { AwaitingReview, type Decided, type ReviewReason } from '../assessment/awaiting-review';
import type { DecisionPlan } from '../decision/decision-plan';
import { applyTracedDecision } from '../decision/apply-decision';
import { type DecisionTrace, decisionMargin } from '../decision/decision-trace';
import { type Decision, type DecisionMetadata, decisionMetadata } from '../decision/decision.decorator';
import { decisionThresholds } from '../decision/thresholds';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import type { Outcome } from '../definition/outcome';
import { AssessmentNotRecorded, UnrebuildableAssessment } from '../errors';
import { AssessmentDecided, AuditRequested, ReviewRequested } from '../events/judgment.events';
import type { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { type JudgmentLogger, describeError } from '../logging/judgment.logger';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { RecordWriter, AttemptContext } from '../persistence/record.writer';
import type { JudgmentRegistry } from '../registry/judgment.registry';
import type { DecisionRouter } from '../routing/decision.router';
import type { ReviewDeadlineScheduler } from './review-deadline.scheduler';
import { judgmentInstruments } from '../telemetry/judgment.metrics';
import { type Context, SpanKind, activeContext, inSpan } from '../telemetry/judgment.tracing';

/** The module services a RecordLink works with, handed over by the Recorder that makes links. */
export interface LinkServices {
  readonly rows: RecordWriter;
  /** Where each decision goes (act, audit, Review): the plan this link carries out. */
  readonly router: DecisionRouter;
  readonly events: JudgmentEventsPublisher;
  readonly logger: JudgmentLogger;
  readonly registry: JudgmentRegistry;
  /** Where a review deadline is scheduled when a record enters Review (null: the sweep finds it). */
  readonly deadlines: ReviewDeadlineScheduler | null;
  /** An instance of a Decision class (the app's provider when it registered one). */
  decisionOf(cls: Type<Decision>): Decision;
}

/**
 * The one link between an Assessment and its record: given to the Assessment when it is made (as its
 * DecisionRecording), it writes the answered attempt, then each decision of the Assessment onto that record. Order of
 * a decision: write the Outcome → log `Judgment decided.` → ReviewRequested (once) → AssessmentDecided; a listener
 * that throws surfaces to the caller after the row and the log line were written. Only this object changes its state.
 */
export class RecordLink implements DecisionRecording {
  private current: AssessmentRecord | null;
  /** Recording was required and failed: deciding must fail too. */
  private refused = false;
  /** The Review the case is in (its record's, or the one a decision through this link sent it to), else null. */
  private inReview: ReviewReason | null;
  /** The Outcome that sent the Assessment to Review through this link. */
  private reviewOutcome: Outcome | undefined;
  /** The trace context the link was made in (the assess span): decisions through it are its children. */
  private readonly traceContext: Context = activeContext();

  constructor(
    private readonly services: LinkServices,
    /** Whether deciding runs each Decision twice (scripted answers). */
    readonly checksPurity: boolean,
    record: AssessmentRecord | null = null,
  ) {
    this.current = record;
    this.inReview = record?.reviewReasonOf() ?? null;
  }

  /** The record decisions are written to, or null (persistence off, or a best-effort write failed). */
  get record(): AssessmentRecord | null {
    return this.current;
  }

  /**
   * Writes the answered attempt the Assessment comes from (a cache hit points at its original). Required recording
   * that fails throws AssessmentNotRecorded and refuses every later decision; best-effort recording logs and goes on.
   */
  async recordAnswered(
    attempt: AttemptContext,
    assessment: Assessment<any>,
    cachedFromId: number | null = null,
  ): Promise<AssessmentRecord | null> {
    const { rows, logger } = this.services;
    if (!rows.persistence.enabled) return null;
    try {
      this.current = await rows.recordAssessment(attempt, assessment, cachedFromId);
    } catch (error) {
      const failure = new AssessmentNotRecorded(
        `The Assessment of ${attempt.name} could not be recorded: ${(error as Error).message}`,
        assessment,
        { cause: error },
      );
      if (rows.persistence.required) {
        this.refused = true;
        throw failure;
      }
      logger.warn('Judgment not recorded.', { ...assessment.logContext(), exception: describeError(failure) });
    }
    return this.current;
  }

  decisionOf(cls: Type<Decision>): Decision {
    return this.services.decisionOf(cls);
  }

  /**
   * Applies a Decision: refuses it if it may not decide this Assessment, computes the Outcome (twice when purity is
   * checked), routes it (act, audit, or Review) and carries the plan out: records, logs and announces it. Resolves to
   * the Outcome when it acts, to AwaitingReview when the case is in Review.
   */
  async decide<J extends Judgment, O extends Outcome>(
    assessment: Assessment<J>,
    decision: Decider<J, O>,
  ): Promise<Decided<O>> {
    const name = judgmentName(assessment.judgment);
    const attributes = { 'judgment.name': name };
    return inSpan('judgment.decide', { attributes, parent: this.traceContext }, async (span) => {
      // Compute-only Assessments are not checked: for them the Decision's compile-time type `Decision<J>` is the guard.
      this.services.registry.refuseForeignDecision(assessment.judgment, decision);
      const { outcome, trace } = applyTracedDecision(assessment, decision, this.checksPurity);
      const decided = { ...attributes, 'judgment.decision': trace.decision, 'judgment.outcome': trace.outcome };
      if (span.isRecording()) {
        span.setAttributes({ ...decided, 'judgment.rule': trace.rule.text });
        if (this.current) span.setAttribute('judgment.record_id', this.current.id);
      }
      const plan = await this.decided(assessment, decision as Decision, outcome, trace);
      judgmentInstruments().decisions.add(1, decided);
      if (plan.route === 'act') return outcome;
      span.setAttribute('judgment.review.cause', plan.reason.cause);
      return new AwaitingReview(outcome, plan.reason, this.current?.id ?? null);
    });
  }

  /** Routes a decision and carries the plan out: writes it, logs it, schedules its deadline, announces it. */
  private async decided(
    assessment: Assessment<any>,
    decision: Decision,
    outcome: Outcome,
    trace: DecisionTrace,
  ): Promise<DecisionPlan> {
    const { router, events, logger } = this.services;
    const name = judgmentName(assessment.judgment);
    if (this.refused) {
      throw new AssessmentNotRecorded(
        `The Outcome ${JSON.stringify(outcome)} of ${name} cannot be recorded: its Assessment was never recorded.`,
        assessment,
      );
    }
    const metadata = decisionMetadata(decision.constructor);
    const routing = router.route({
      assessment,
      decision,
      metadata,
      outcome,
      trace,
      inReview: this.inReview,
      auditable: this.current !== null && this.current.auditRequestedAt === null,
    });
    const plan = this.current
      ? await this.write(assessment, decision, metadata, outcome, trace, routing.plan)
      : routing.plan;
    const entered = plan.route === 'review' && plan.enters;
    if (entered) {
      // Before any await: concurrent decisions of an unrecorded Assessment enter Review once.
      this.inReview = plan.reason;
      this.reviewOutcome = outcome;
    }
    logger.info('Judgment decided.', { ...assessment.logContext(), decision: metadata.name, outcome });
    const record = this.current;
    const counted = { 'judgment.name': name, 'judgment.decision': metadata.name };
    await router.announce(routing, record, counted);
    if (entered) {
      const requestedAt = record?.reviewRequestedAt ?? new Date();
      if (record?.reviewDeadlineAt) await this.scheduleDeadline(record.id, record.reviewDeadlineAt);
      await events.emit(
        new ReviewRequested(assessment.judgment, assessment, outcome, record, requestedAt, plan.reason),
      );
    }
    if (plan.route === 'act' && plan.audit && record) {
      judgmentInstruments().audits.add(1, { ...counted, 'judgment.audit.event': 'requested' });
      await events.emit(new AuditRequested(assessment.judgment, assessment, outcome, record));
    }
    const review = plan.route === 'review' ? plan.reason : null;
    await events.emit(new AssessmentDecided(assessment.judgment, assessment, decision, outcome, record, review));
    return plan;
  }

  /**
   * Writes a decision's plan onto the record in one conditional UPDATE, and returns the plan as it was carried out:
   * a record another decision put in Review (or that went through Review) keeps its first reason, an audit another
   * decision requested is not requested twice. Required recording that fails throws; best-effort recording logs,
   * drops the record and keeps the plan (an unrecorded Review still awaits a person).
   */
  private async write(
    assessment: Assessment<any>,
    decision: Decision,
    metadata: DecisionMetadata,
    outcome: Outcome,
    trace: DecisionTrace,
    plan: DecisionPlan,
  ): Promise<DecisionPlan> {
    const { rows, logger } = this.services;
    const current = this.current as AssessmentRecord;
    const entersReview = plan.route === 'review' && plan.enters;
    const thresholds = decisionThresholds(decision);
    const columns = {
      decision: metadata.name,
      decisionVersion: metadata.version,
      decisionThresholds: thresholds === null ? null : { ...thresholds },
      outcomeType: metadata.outcomeType,
      outcome: String(outcome),
      decisionTrace: trace,
      decisionMargin: decisionMargin(trace),
    };
    const entering = {
      review: entersReview ? plan.reason : null,
      audit: plan.route === 'act' && plan.audit,
      reviewDeadline: entersReview ? (metadata.reviewDeadline?.after ?? null) : null,
    };
    try {
      const { written, record } = await inSpan(
        'judgment.record',
        { kind: SpanKind.CLIENT, attributes: () => rows.spanAttributes('UPDATE') },
        () => rows.recordDecision(current.id, columns, entering),
      );
      if (!written && record === null) {
        throw UnrebuildableAssessment.recordGone(current.id, judgmentName(assessment.judgment));
      }
      // Refresh the caller's instance in place, so the record an event or caller holds shows the row as it is.
      if (record) Object.assign(current, record);
      if (written) return plan;
      const reason = current.reviewReasonOf();
      return reason ? { route: 'review', reason, enters: false } : { route: 'act', audit: false };
    } catch (error) {
      // A deleted record is no write failure: nothing can be decided for it, recording required or not.
      if (error instanceof UnrebuildableAssessment) throw error;
      if (rows.persistence.required) {
        throw new AssessmentNotRecorded(
          `The Outcome ${JSON.stringify(outcome)} of ${judgmentName(assessment.judgment)} could not be recorded: ` +
            (error as Error).message,
          assessment,
          { cause: error },
        );
      }
      logger.warn('Judgment not recorded.', { ...assessment.logContext(), exception: describeError(error) });
      this.current = null;
      return plan.route === 'act' ? { route: 'act', audit: false } : plan;
    }
  }

  /**
   * Hands the deadline to the scheduler (the queue's delayed job). The deadline is already on the row, so a failure
   * here is logged, not thrown: the sweep (`judgment review:expire`) still finds the record when it is due.
   */
  private async scheduleDeadline(recordId: number, deadlineAt: Date): Promise<void> {
    const { deadlines, logger } = this.services;
    if (!deadlines) return;
    try {
      await deadlines.schedule(recordId, new Date(deadlineAt));
    } catch (error) {
      logger.warn('Review deadline not scheduled.', { record: recordId, exception: describeError(error) });
    }
  }

  /**
   * The Outcome the Assessment awaits Review with, or undefined when it does not: a recorded one is read again (so a
   * record resolved since no longer awaits Review), an unrecorded one counts once deciding sent it to Review.
   */
  async awaitedReview(): Promise<Outcome | undefined> {
    if (!this.current) return this.inReview ? this.reviewOutcome : undefined;
    const record = await this.services.rows.repository().findOneBy({ id: this.current.id });
    if (!record?.isAwaitingReview() || record.outcome === null) return undefined;
    if (this.reviewOutcome !== undefined && String(this.reviewOutcome) === record.outcome) return this.reviewOutcome;
    const { registry } = this.services;
    const decision = record.decision !== null && registry.hasDecision(record.decision) ? record.decision : null;
    if (decision === null) return record.outcome;
    return (
      decisionMetadata(registry.decision(decision)).outcomes.find((o) => String(o) === record.outcome) ?? record.outcome
    );
  }
}
