// `nestjs-judgment/calibration`: measuring Decisions against labelled cases before anyone trusts their thresholds,
// suggesting thresholds, the calibration lock the app runs under, and what watches it: the audit agreement and the
// signal-collapse guard's event.
export { Calibration, type CalibrationRunOptions } from './calibration.service';
export { CalibrationReport, type TemperatureResult } from './calibration.report';
export { CalibrationSuggestion } from './calibration-suggestion';
export {
  type SuggestOptions,
  type ThresholdSuggestion,
  type CandidateFigures,
  type CapacityCheck,
  SUGGESTION_METHOD,
  SUGGESTION_ASSUMPTION,
} from './threshold-suggestion';
// The escalation cascade's thresholds chosen together (`judgment eval --suggest` on a cascade), and the pure search.
export type { CascadeThresholdSuggestion, CascadeTierSetup } from './cascade-calibration';
export {
  suggestCascade,
  bandCandidates,
  VERDICT,
  CASCADE_METHOD,
  CASCADE_ASSUMPTION,
  type CascadeTierInput,
  type CascadeTierCandidate,
  type CascadeTarget,
  type CascadeSuggestionResult,
  type CascadePoint,
  type CascadeTierFigures,
  type AloneTier,
} from './cascade-suggestion';
export { type RecordedTraffic, TRAFFIC_WINDOW_DAYS } from './recorded-traffic';
export {
  type ResolutionIdentity,
  type ResolutionTemperature,
  type ResolutionTemperatures,
  RESOLUTION_TRUTH_RULE,
} from './resolution-temperatures';
export { LabelledCase } from './labelled-case';
export { type AuditPlan, type AuditPlanOptions, planAudits, auditsNeededFor } from './audit-plan';
export { fitTemperature, type TemperatureFit, type TemperatureSample } from './temperature-fit';
export { lockCalibration } from './calibration-lock.update';
export { CalibrationLock, type LockedDecision, type LockedIdentity, type LockedTier } from '../lock/calibration-lock';
export { type AuditAgreement, auditAgreements } from '../lock/audit-agreement';
export type { SignalFigures } from '../lock/signal-figures';
export { SignalCollapsed, type DecisionIdentity } from '../events/judgment.events';
export type { CalibrationOptions, DriftPolicy } from '../judgment.options';
export { InvalidAuditPlan, InvalidCalibration, InvalidCalibrationLock, InvalidSuggestion } from '../errors';
// Reviewer capacity: the Review backlog forecast against the deadlines (`judgment status`, ReviewBacklogAtRisk).
export { ReviewBacklog, type JudgmentBacklogForecast } from '../review/review-backlog.service';
export { BACKLOG_FORECAST_METHOD, FORECAST_WINDOW_HOURS, forecastBacklog } from '../review/backlog-forecast';
// N-of-M review: the reviewers' votes, the events of each step, and their agreement (raw agreement, Cohen's kappa).
export {
  ReviewVoteCast,
  ReviewAgreed,
  ReviewAdjudicationNeeded,
  ReviewAdjudicated,
  type ReviewVote,
} from '../events/judgment.events';
export type { VotesView } from '../review/review-votes.service';
export {
  cohensKappa,
  type AgreementFigures,
  type JudgmentAgreement,
  type ReviewerAgreement,
  type ReviewerPairAgreement,
} from '../review/reviewer-agreement';
