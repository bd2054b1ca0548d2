// The public API of nestjs-judgment for applications: the module, declaring Judgments and Decisions, the Judge, the
// Assessment, the events, the records and the errors an app catches. Driver authors import from
// `nestjs-judgment/drivers`, tests from `nestjs-judgment/testing`, calibration from `nestjs-judgment/calibration`, the
// HTTP adapter from `nestjs-judgment/http`; metadata readers, encodings and the queue's job payloads stay internal.
export { JudgmentModule } from './judgment.module';
export type { JudgmentModuleExtras } from './judgment.module-definition';
export type { JudgmentModuleOptions } from './judgment.options';
export { judgmentOptionsFromEnv, judgmentQueueAttemptsFromEnv } from './judgment.env';
export { Judge } from './judge/judge.service';
export type { AssessResult, JudgmentTypeConfig } from './judge/judge.types';

export { Judgment, judgmentName } from './definition/judgment.decorator';
export { Decision } from './decision/decision.decorator';
export { decisionThresholds, withThresholds, type Thresholds } from './decision/thresholds';
export type { Outcome } from './definition/outcome';
export { Evidence, UntrustedText, type EvidenceMap } from './definition/evidence';
export { Likelihood } from './questions/likelihood';
export { LikelihoodSet } from './questions/likelihood-set';
export { Classification } from './questions/classification';
export { Rating } from './questions/rating';
export type { QuestionMap } from './questions/question';
export { Assessment } from './assessment/assessment';
export { Unassessed } from './assessment/unassessed';
export {
  AwaitingReview,
  type Decided,
  type ReviewCause,
  type ReviewReason,
  decidedOutcome,
  reviewReasonOf,
} from './assessment/awaiting-review';

export {
  AssessmentCompleted,
  AssessmentDispatched,
  AssessmentDecided,
  AssessmentEscalated,
  AssessmentFailed,
  ReviewRequested,
  ReviewResolved,
  ReviewClaimed,
  ReviewReleased,
  ReviewExpired,
  ReviewBacklogAtRisk,
  type ReviewBacklogForecast,
  CalibrationDrifted,
  AuditRequested,
  AuditResolved,
  AgreementDropped,
} from './events/judgment.events';
export { AssessmentRecord } from './persistence/assessment-record.entity';
export { judgmentEntities, judgmentMigrations } from './persistence';
export { AssessmentRecords } from './records/assessment-records.service';
export type { RecordFilter, ReviewListFilter } from './records/record-queries.service';
export type { Reviewer } from './persistence/reviewer';
export type { ResolutionPolicy } from './review/resolution-policy';
export type { ClaimOptions } from './review/review-claims.service';
// The errors an application catches in its normal course. Declaration and configuration errors (what a test of the
// app expects) come from `nestjs-judgment/testing`, the Engine failures a driver throws from `nestjs-judgment/drivers`,
// the calibration's from `nestjs-judgment/calibration`.
export {
  JudgmentError,
  EngineFailed,
  EngineRateLimited,
  EngineBudgetExhausted,
  AssessmentNotRecorded,
  UnrebuildableAssessment,
  SubjectNotFound,
  InvalidResolution,
  InvalidReviewer,
  InvalidClaim,
  ReviewClaimConflict,
  UnknownRecord,
  ResolutionForbidden,
  InvalidRecordQuery,
} from './errors';
