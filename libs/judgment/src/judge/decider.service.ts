import { Injectable, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Assessment } from '../assessment/assessment';
import { linkAssessment } from '../assessment/links';
import { type Decision, type Outcome, decisionMetadata, isDecision } from '../definition/decision.decorator';
import { judgmentMetadata, judgmentName } from '../definition/judgment.decorator';
import { JudgmentRegistry } from '../definition/judgment.registry';
import { AssessmentNotRecorded, InvalidDecision } from '../errors';
import { AssessmentDecided, ReviewRequested } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { JudgmentLogger, describeError } from '../logging/judgment.logger';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { AssessmentRecorder } from '../persistence/assessment.recorder';

/** What the Judge knows about one linked Assessment while it is decided. */
export interface LinkState {
  /** Its record, or null when nothing was written (persistence off, or a best-effort write failed). */
  record: AssessmentRecord | null;
  /** Recording was required and failed: deciding it must fail too. */
  refused: boolean;
  /** It already entered Review (used when there is no record to guard it). */
  awaitingReview: boolean;
}

/** The link state of each linked Assessment, so the queue worker can learn which record the Judge wrote. */
const linkStates = new WeakMap<Assessment<any>, LinkState>();

/** The record written for an Assessment the Judge produced (null: nothing written, or not linked by a Judge). */
export function recordOf(assessment: Assessment<any>): AssessmentRecord | null {
  return linkStates.get(assessment)?.record ?? null;
}

/**
 * Records, logs and announces the decisions of Assessments the Judge produced (or rebuilt through a record). Order:
 * write the Outcome → log `Judgment decided.` → ReviewRequested (once) → AssessmentDecided. A listener that throws
 * surfaces to the caller after the row and the log line were written.
 */
@Injectable()
export class Decider {
  constructor(
    private readonly recorder: AssessmentRecorder,
    private readonly events: JudgmentEventsPublisher,
    private readonly logger: JudgmentLogger,
    private readonly moduleRef: ModuleRef,
    private readonly registry: JudgmentRegistry,
  ) {}

  /** Links an Assessment so deciding it is recorded against `state.record`. */
  link(assessment: Assessment<any>, state: LinkState): void {
    linkStates.set(assessment, state);
    linkAssessment(assessment, {
      decided: (linked, decision, outcome) => this.decided(linked, decision, outcome, state),
      admit: (linked, decision) => this.admit(linked, decision),
      resolveDecision: (cls) => this.resolveDecision(cls),
    });
  }

  /**
   * Refuses a Decision that is the default Decision of other registered Judgments only. Unlinked Assessments (Replay,
   * fakes) are not checked here: for them the Decision's compile-time type `Decision<J>` is the guard.
   */
  admit(assessment: Assessment<any>, decision: unknown): void {
    const cls = (decision as object | null)?.constructor;
    if (typeof cls !== 'function' || !isDecision(cls)) return;
    const owners = this.registry.judgments().filter((judgment) => judgmentMetadata(judgment).decision === cls);
    if (owners.length === 0 || owners.includes(assessment.judgment.constructor as never)) return;
    const name = decisionMetadata(cls).name;
    throw new InvalidDecision(
      `${name} is the Decision of ${owners.map((owner) => judgmentName(owner)).join(', ')}; it cannot decide an ` +
        `Assessment of ${judgmentName(assessment.judgment)}. Pass a Decision written for ` +
        `${judgmentName(assessment.judgment)} instead.`,
    );
  }

  /** A Decision instance through DI (so apps and tests can override it), or a new one when it is not a provider. */
  resolveDecision(cls: Type<Decision>): Decision {
    try {
      return this.moduleRef.get(cls, { strict: false });
    } catch {
      return new cls();
    }
  }

  private async decided(assessment: Assessment<any>, decision: Decision, outcome: Outcome, state: LinkState) {
    const name = judgmentName(assessment.judgment);
    if (state.refused) {
      throw new AssessmentNotRecorded(
        `The Outcome ${JSON.stringify(outcome)} of ${name} cannot be recorded: its Assessment was never recorded.`,
        assessment,
      );
    }
    const metadata = decisionMetadata(decision.constructor);
    let entersReview = metadata.review.has(outcome) && !state.awaitingReview;
    if (state.record) {
      try {
        const { written, record } = await this.recorder.recordDecision(
          state.record.id,
          {
            decision: metadata.name,
            decisionVersion: metadata.version,
            outcomeType: metadata.outcomeType,
            outcome: String(outcome),
          },
          entersReview,
        );
        entersReview = entersReview && written;
        // Refresh the caller's instance in place, so the record an event or caller holds shows the row as it is.
        if (record) Object.assign(state.record, record);
      } catch (error) {
        if (this.recorder.persistence.required) {
          throw new AssessmentNotRecorded(
            `The Outcome ${JSON.stringify(outcome)} of ${name} could not be recorded: ${(error as Error).message}`,
            assessment,
            { cause: error },
          );
        }
        this.logger.warn('Judgment not recorded.', { ...assessment.logContext(), exception: describeError(error) });
        state.record = null;
      }
    }
    this.logger.info('Judgment decided.', { ...assessment.logContext(), decision: metadata.name, outcome });
    const record = state.record;
    if (entersReview) {
      state.awaitingReview = true;
      const requestedAt = record?.reviewRequestedAt ?? new Date();
      await this.events.emit(new ReviewRequested(assessment.judgment, assessment, outcome, record, requestedAt));
    }
    await this.events.emit(new AssessmentDecided(assessment.judgment, assessment, decision, outcome, record));
  }
}
