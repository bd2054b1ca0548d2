import { Injectable } from '@nestjs/common';
import type { Assessment } from '../assessment/assessment';
import type { Provenance } from '../assessment/provenance';
import { AssessmentNotRecorded, type EngineFailed, UnassessedNotRecorded } from '../errors';
import { JudgmentLogger, describeError } from '../logging/judgment.logger';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { type AttemptContext, AssessmentRecorder } from '../persistence/assessment.recorder';
import type { LinkState } from './decider.service';

/**
 * Records attempts by the package's rules, for the Judge and its fake alike: an answered attempt is required
 * (AssessmentNotRecorded, and deciding it is refused) or best-effort; a failed attempt is always best-effort.
 */
@Injectable()
export class AttemptRecorder {
  constructor(
    private readonly recorder: AssessmentRecorder,
    private readonly logger: JudgmentLogger,
  ) {}

  /** Writes an answered attempt into `state.record` (null when persistence is off or a best-effort write failed). */
  async answered(
    attempt: AttemptContext,
    assessment: Assessment<any>,
    state: LinkState,
    cachedFromId: number | null = null,
  ): Promise<AssessmentRecord | null> {
    if (!this.recorder.persistence.enabled) return null;
    try {
      state.record = await this.recorder.recordAssessment(attempt, assessment, cachedFromId);
    } catch (error) {
      const failure = new AssessmentNotRecorded(
        `The Assessment of ${attempt.name} could not be recorded: ${(error as Error).message}`,
        assessment,
        { cause: error },
      );
      if (this.recorder.persistence.required) {
        state.refused = true;
        throw failure;
      }
      this.logger.warn('Judgment not recorded.', { ...assessment.logContext(), exception: describeError(failure) });
    }
    return state.record;
  }

  /**
   * Writes a failed attempt, best-effort: a write that fails is logged as `Judgment not recorded.` and the record is
   * null, so the Engine's failure always reaches the caller. Provenance only when the Judge rejected a response.
   */
  async failed(
    attempt: AttemptContext,
    error: EngineFailed,
    provenance: Provenance | null,
  ): Promise<AssessmentRecord | null> {
    if (!this.recorder.persistence.enabled) return null;
    try {
      return await this.recorder.recordFailure(attempt, error, provenance);
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
