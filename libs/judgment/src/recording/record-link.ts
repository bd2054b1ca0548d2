import type { Type } from '@nestjs/common';
import type { Assessment, Decider, DecisionRecording } from '../assessment/assessment';
import { AwaitingReview, type Decided, type ReviewReason } from '../assessment/awaiting-review';
import type { DecisionPlan } from '../decision/decision-plan';
import { applyTracedDecision } from '../decision/apply-decision';
import { type DecisionTrace, decisionMargin } from '../decision/decision-trace';
import { type Decision, type DecisionMetadata, decisionMetadata } from '../decision/decision.decorator';
import { decisionThresholds, withThresholds } from '../decision/thresholds';
import type { CascadeStep, CascadeTier } from '../definition/cascade';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import type { Outcome } from '../definition/outcome';
import { AssessmentNotRecorded, UnrebuildableAssessment } from '../errors';
import { AssessmentDecided, AssessmentEscalated, AuditRequested, ReviewRequested } from '../events/judgment.events';
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

/** A link's place in its Judgment's escalation cascade, and how it asks the next tier. */
export interface LinkCascade {
  readonly step: CascadeStep;
  readonly tiers: readonly CascadeTier[];
  /** The Decision class the cascade decides with (other Decisions decide as without a cascade). */
  readonly decision: Function;
  /**
   * Asks the next tier and decides its Assessment with `decision` through that tier's own link (which records, routes
   * and announces it); resolves to what that decision resolved to, or to null when the tier could not answer and the
   * failure is not thrown (`throwOnFailure: false`). Null when this link cannot ask another tier: the case then goes
   * to Review as without a cascade.
   */
  readonly escalate: ((decision: Decision, from: EscalatingTier) => Promise<Decided<Outcome> | null>) | null;
}

/** The tier that escalates, as the one asking the next tier is told of it. */
export interface EscalatingTier {
  readonly assessment: Assessment<any>;
  readonly record: AssessmentRecord | null;
  readonly step: CascadeStep;
  /** The Review Outcome this tier's answers were decided to. */
  readonly outcome: Outcome;
  /** The tier to ask, and why, in words. */
  readonly to: { readonly tier: number; readonly connection: string; readonly text: string };
}

/** What carrying out a decision's plan came to: the plan, and the next tier's decision when it escalated. */
interface CarriedOut {
  readonly plan: DecisionPlan;
  readonly escalated?: Decided<Outcome>;
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
  /** The trace context the link was made in (the assess span): decisions through it are its children. */
  private readonly traceContext: Context = activeContext();

  constructor(
    private readonly services: LinkServices,
    /** Whether deciding runs each Decision twice (scripted answers). */
    readonly checksPurity: boolean,
    record: AssessmentRecord | null = null,
    /** The attempt's place in its Judgment's escalation cascade, or null without one. */
    private readonly cascade: LinkCascade | null = null,
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
      const cascade = this.cascade && decision.constructor === this.cascade.decision ? this.cascade : null;
      const deciding = (cascade ? tierDecision(decision as Decision, cascade) : decision) as Decider<J, O>;
      const { outcome, trace } = applyTracedDecision(assessment, deciding, this.checksPurity);
      const decided = { ...attributes, 'judgment.decision': trace.decision, 'judgment.outcome': trace.outcome };
      if (span.isRecording()) {
        span.setAttributes({ ...decided, 'judgment.rule': trace.rule.text });
        if (this.current) span.setAttribute('judgment.record_id', this.current.id);
      }
      const { plan, escalated } = await this.decided(
        assessment,
        decision as Decision,
        deciding as Decision,
        outcome,
        trace,
        cascade,
      );
      if (plan.route === 'escalate') {
        span.setAttribute('judgment.cascade.escalated_to', plan.tier);
        return escalated as unknown as Decided<O>;
      }
      judgmentInstruments().decisions.add(1, decided);
      if (plan.route === 'act') return outcome;
      span.setAttribute('judgment.review.cause', plan.reason.cause);
      return new AwaitingReview(outcome, plan.reason, this.current?.id ?? null);
    });
  }

  /**
   * Routes a decision and carries the plan out: writes it, logs it, schedules its deadline, announces it; or, when it
   * escalates, writes it as escalated, announces that and asks the next tier.
   */
  private async decided(
    assessment: Assessment<any>,
    asked: Decision,
    decision: Decision,
    outcome: Outcome,
    trace: DecisionTrace,
    cascade: LinkCascade | null,
  ): Promise<CarriedOut> {
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
      escalation: nextTier(cascade),
      tier: cascade?.step ?? null,
    });
    let carried = this.current
      ? await this.write(assessment, decision, metadata, outcome, trace, routing.plan)
      : routing.plan;
    if (carried.route === 'escalate' && cascade?.escalate) {
      const escalated = await this.escalate(assessment, asked, outcome, carried, cascade);
      if (escalated !== null) return { plan: carried, escalated };
      // The next tier could not answer (and its failure is not thrown): the case awaits a person on this record.
      const text = `${carried.text} Tier ${carried.tier} could not answer.`;
      carried = { route: 'review', reason: { cause: 'band', text }, enters: true };
      if (this.current) carried = await this.write(assessment, decision, metadata, outcome, trace, carried);
    }
    const plan = carried;
    const entered = plan.route === 'review' && plan.enters;
    if (entered) {
      // Before any await: concurrent decisions of an unrecorded Assessment enter Review once.
      this.inReview = plan.reason;
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
    await events.emit(
      new AssessmentDecided(assessment.judgment, assessment, decision, outcome, record, review, cascade?.step ?? null),
    );
    return { plan };
  }

  /** Notes that the case escalated (log line, event), then asks the next tier through the cascade. */
  private async escalate(
    assessment: Assessment<any>,
    asked: Decision,
    outcome: Outcome,
    plan: Extract<DecisionPlan, { route: 'escalate' }>,
    cascade: LinkCascade,
  ): Promise<Decided<Outcome> | null> {
    const { events, logger } = this.services;
    const record = this.current;
    const to = { tier: plan.tier, connection: plan.connection };
    logger.info('Judgment escalated.', {
      ...assessment.logContext(),
      decision: decisionMetadata(asked.constructor).name,
      outcome,
      tier: cascade.step.tier,
      escalated_to: plan.tier,
    });
    await events.emit(
      new AssessmentEscalated(assessment.judgment, assessment, asked, outcome, record, cascade.step, to),
    );
    return (cascade.escalate as NonNullable<LinkCascade['escalate']>)(asked, {
      assessment,
      record,
      step: cascade.step,
      outcome,
      to: { ...to, text: plan.text },
    });
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
    const escalated = plan.route === 'escalate' ? { escalated: { tier: plan.tier, connection: plan.connection } } : {};
    const columns = {
      decision: metadata.name,
      decisionVersion: metadata.version,
      decisionThresholds: thresholds === null ? null : { ...thresholds },
      outcomeType: metadata.outcomeType,
      outcome: String(outcome),
      decisionTrace: { ...trace, ...escalated },
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

  /** This link's place in its cascade, or null without one. */
  get cascadeStep(): CascadeStep | null {
    return this.cascade?.step ?? null;
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
}

/** The next tier a Review Outcome of this cascade's decision escalates to, or null (no cascade, no next tier). */
function nextTier(cascade: LinkCascade | null): { tier: number; connection: string } | null {
  if (!cascade?.escalate || cascade.step.tier >= cascade.tiers.length) return null;
  return { tier: cascade.step.tier + 1, connection: cascade.tiers[cascade.step.tier].connection };
}

/** The cascade's Decision deciding with its tier's thresholds (the named ones replaced, the others its own). */
function tierDecision(decision: Decision, cascade: LinkCascade): Decision {
  const tier = cascade.tiers[cascade.step.tier - 1];
  const named = (tier?.thresholds ?? {}) as Readonly<Record<string, number>>;
  if (Object.keys(named).length === 0) return decision;
  return withThresholds(decision, { ...decisionThresholds(decision), ...named });
}
