import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EncodedAnswer } from '../assessment/assessment';
import type { Provenance } from '../assessment/provenance';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { type EngineFailed, UnassessedNotRecorded } from '../errors';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { JudgmentLogger, describeError } from '../logging/judgment.logger';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { type AttemptContext, RecordWriter } from '../persistence/record.writer';
import { DecisionRouter } from '../routing/decision.router';
import { type LinkCascade, type LinkServices, RecordLink } from './record-link';
import { cascadeStepOf } from '../definition/cascade';
import { judgmentMetadata } from '../definition/judgment.decorator';
import { REVIEW_DEADLINE_SCHEDULER, type ReviewDeadlineScheduler } from './review-deadline.scheduler';

/**
 * Records attempts by the package's rules: an answered attempt through the RecordLink its Assessment is made with
 * (required, or best-effort), a failed attempt best-effort. It makes every RecordLink, so it is where the Judge, the
 * queue and Replay-to-decide all get the link between an Assessment and its record.
 */
@Injectable()
export class Recorder {
  private readonly services: LinkServices;

  constructor(
    private readonly rows: RecordWriter,
    private readonly logger: JudgmentLogger,
    events: JudgmentEventsPublisher,
    registry: JudgmentRegistry,
    router: DecisionRouter,
    @Optional() @Inject(REVIEW_DEADLINE_SCHEDULER) deadlines?: ReviewDeadlineScheduler,
  ) {
    this.services = {
      rows,
      router,
      events,
      logger,
      registry,
      deadlines: deadlines ?? null,
      decisionOf: (cls) => registry.decisionOf(cls),
    };
  }

  /**
   * A link for an Assessment about to be made; `recordAnswered` writes its record (or, with `record`, for one an
   * earlier run of its queued job wrote). With `cascade`, deciding it with the cascade's Decision uses its tier's
   * thresholds, and a Review Outcome asks the next tier.
   */
  link(options: { checksPurity: boolean; cascade?: LinkCascade | null; record?: AssessmentRecord }): RecordLink {
    return new RecordLink(this.services, options.checksPurity, options.record ?? null, options.cascade ?? null);
  }

  /**
   * A link to an existing record, to decide an Assessment rebuilt from it. A record of a cascade tier decides with
   * that tier's thresholds; a Review Outcome asks the next tier through `escalate` (a job's), else goes to Review.
   */
  linkTo(record: AssessmentRecord, escalate: LinkCascade['escalate'] = null): RecordLink {
    return new RecordLink(this.services, false, record, this.recordedCascade(record, escalate));
  }

  /** The cascade place a record notes (`provenance_details.cascade`), when its Judgment still declares a cascade. */
  private recordedCascade(record: AssessmentRecord, escalate: LinkCascade['escalate']): LinkCascade | null {
    const step = cascadeStepOf(record);
    const { registry } = this.services;
    if (!step || !registry.hasJudgment(record.judgment)) return null;
    const metadata = judgmentMetadata(registry.judgment(record.judgment));
    if (!metadata.cascade || !metadata.decision || step.tier > metadata.cascade.length) return null;
    return { step, tiers: metadata.cascade, decision: metadata.decision, escalate };
  }

  /**
   * Writes a failed attempt, best-effort: a write that fails is logged as `Judgment not recorded.` and the record is
   * null, so the Engine's failure always reaches the caller. Provenance when the Judge rejected a response, or of the
   * `answers` the Engine gave before the round failed (paid for: the record holds them with the failure).
   */
  async failed(
    attempt: AttemptContext,
    error: EngineFailed,
    provenance: Provenance | null,
    answers: Record<string, EncodedAnswer> | null = null,
  ): Promise<AssessmentRecord | null> {
    if (!this.rows.persistence.enabled) return null;
    try {
      return await this.rows.recordFailure(attempt, error, provenance, answers);
    } catch (writeError) {
      const unrecorded = new UnassessedNotRecorded(
        `The Unassessed attempt of ${attempt.name} could not be recorded: ${(writeError as Error).message}`,
        attempt.judgment,
        error,
        { cause: writeError },
      );
      this.logger.warn('Judgment not recorded.', {
        judgment: attempt.name,
        ...(provenance ? provenance.logContext() : {}),
        exception: describeError(unrecorded),
      });
      return null;
    }
  }
}
