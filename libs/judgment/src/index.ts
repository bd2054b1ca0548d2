// The public API of nestjs-judgment for applications. Driver authors import from `nestjs-judgment/drivers`, tests
// from `nestjs-judgment/testing`; metadata readers, encodings and the queue's job payloads stay internal.
export { JudgmentModule } from './judgment.module';
export type { JudgmentModuleExtras } from './judgment.module-definition';
export type {
  JudgmentModuleOptions,
  ConnectionLimits,
  LimiterOptions,
  CalibrationOptions,
  DriftPolicy,
} from './judgment.options';
export { judgmentOptionsFromEnv, judgmentQueueAttemptsFromEnv } from './judgment.env';
export { Judge } from './judge/judge.service';
export { AnswerSource } from './judge/answer-source';
export type { AssessResult, JudgmentTypeConfig } from './judge/judge.types';

export { Judgment, judgmentName } from './definition/judgment.decorator';
export { Decision } from './decision/decision.decorator';
export { decisionThresholds, withThresholds, type Thresholds } from './decision/thresholds';
export type { DecisionTrace, TraceComparison } from './decision/decision-trace';
export type { TracedRead } from './assessment/reading-trace';
export type { Outcome } from './definition/outcome';
export { Evidence, UntrustedText, type EvidenceMap } from './definition/evidence';
export { Likelihood } from './questions/likelihood';
export { LikelihoodSet } from './questions/likelihood-set';
export { Classification, NONE_LABEL } from './questions/classification';
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
  AssessmentDecided,
  AssessmentFailed,
  ReviewRequested,
  ReviewResolved,
  ReviewClaimed,
  ReviewReleased,
  ReviewExpired,
  CalibrationDrifted,
  type DecisionIdentity,
  AuditRequested,
  AuditResolved,
  AgreementDropped,
} from './events/judgment.events';
export { AssessmentRecord } from './persistence/assessment-record.entity';
export { judgmentEntities, judgmentMigrations } from './persistence';
export { AssessmentRecords } from './records/assessment-records.service';
export { DEFAULT_RECORD_LIMIT, MAX_RECORD_LIMIT, type RecordFilter } from './records/record-queries.service';
export type { Reviewer } from './persistence/reviewer';
export type { ResolutionPolicy } from './review/resolution-policy';
export type { ClaimOptions } from './review/review-claims.service';
export { Calibration, type CalibrationRunOptions } from './calibration/calibration.service';
export { CalibrationReport, type TemperatureResult } from './calibration/calibration.report';
export {
  CalibrationSuggestion,
  type SuggestOptions,
  type ThresholdSuggestion,
  type CandidateFigures,
  SUGGESTION_METHOD,
  SUGGESTION_ASSUMPTION,
} from './calibration/threshold-suggestion';
export { lockCalibration } from './calibration/calibration-lock.update';
export { CalibrationLock, type LockedDecision, type LockedIdentity } from './lock/calibration-lock';
export { type AuditAgreement, auditAgreements } from './lock/audit-agreement';
export { fitTemperature, type TemperatureFit, type TemperatureSample } from './calibration/temperature-fit';
export { LabelledCase } from './calibration/labelled-case';
export { JudgmentChecks } from './checks/judgment-checks.service';
export type { CheckFinding, CheckReport, CheckSeverity } from './errors';

// The errors an application may meet. Those only the testing kit throws are exported from `nestjs-judgment/testing`.
export {
  JudgmentError,
  EngineFailed,
  MalformedEngineResponse,
  EngineRejectedRequest,
  EngineUnauthorized,
  EngineRateLimited,
  EngineOverloaded,
  EngineBudgetExhausted,
  EngineNotConfigured,
  UnpinnedModel,
  InvalidConfiguration,
  InvalidRateLimit,
  InvalidQuestion,
  InvalidEvidence,
  InvalidJudgment,
  InvalidDecision,
  DuplicateJudgmentName,
  NoDefaultDecision,
  UnknownJudgmentName,
  UnknownDecision,
  UndeclaredQuestion,
  WrongQuestionKind,
  UndeclaredLabel,
  AssessmentNotRecorded,
  UnrebuildableAssessment,
  SubjectNotFound,
  InvalidResolution,
  InvalidReviewer,
  InvalidClaim,
  ReviewClaimConflict,
  UnknownRecord,
  ResolutionForbidden,
  InvalidCalibration,
  InvalidCalibrationLock,
  InvalidSuggestion,
  InvalidRecordQuery,
  UnqueueableJudgment,
  JudgmentCheckFailed,
  MissingEvidencePath,
} from './errors';
