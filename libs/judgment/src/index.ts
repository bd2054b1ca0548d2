// The public API of nestjs-judgment. Everything a user imports comes from here (or from `nestjs-judgment/testing`).
export * from './errors';

export { Evidence, UntrustedText, type EvidenceMap, type JsonValue } from './definition/evidence';
export {
  Judgment,
  judgmentMetadata,
  judgmentName,
  type JudgmentClass,
  type JudgmentMetadata,
  type JudgmentOptions,
  type ClassRef,
} from './definition/judgment.decorator';
export {
  Decision,
  decisionMetadata,
  type DecisionMetadata,
  type DecisionOptions,
  type Outcome,
  type OutcomeEnum,
} from './definition/decision.decorator';
export { JudgmentRegistry, UnknownJudgmentName } from './definition/judgment.registry';

export { Likelihood, type LikelihoodMeaning } from './questions/likelihood';
export { LikelihoodSet } from './questions/likelihood-set';
export { Classification, NONE_LABEL } from './questions/classification';
export { Rating } from './questions/rating';
export { type Question, type DeclaredQuestion, type QuestionMap, type QuestionKind } from './questions/question';
export { questionsFingerprint } from './questions/questions-fingerprint';

export { Assessment, type EncodedAnswer, type EncodedAnswers } from './assessment/assessment';
export { LikelihoodAnswer, ClassificationAnswer, RatingAnswer, LikelihoodSetAnswer } from './assessment/answers';
export { Provenance } from './assessment/provenance';
export { Unassessed } from './assessment/unassessed';
export type {
  QuestionsOf,
  LikelihoodKey,
  ClassificationKey,
  RatingKey,
  LikelihoodSetKey,
  LabelsOf,
} from './assessment/typing';

export type { Engine, EngineRequest, EngineResponse, EngineAnswer } from './engines/engine.interface';
export type { JudgmentModuleOptions, EngineConnectionOptions, PersistenceOptions } from './judgment.options';

export { JudgmentModule, JudgmentRegistryModule } from './judgment.module';
export { type JudgmentModuleExtras } from './judgment.module-definition';
export { JUDGMENT_MODULE_OPTIONS } from './judgment.constants';
export { judgmentOptionsFromEnv, judgmentQueueAttemptsFromEnv, InvalidConfiguration } from './judgment.env';
export { Judge } from './judge/judge.service';
export { AnswerSource, type ChosenEngine } from './judge/answer-source';
export type { AssessResult, DispatchOptions, JudgmentTypeConfig } from './judge/judge.types';
export {
  EngineManager,
  isPinnedModel,
  type EngineFactory,
  type EngineFactoryContext,
  type EngineConnectionStatus,
} from './engines/engine.manager';
export { JevEngine, DEFAULT_JEV_URL } from './engines/jev/jev.engine';
export { fenceUntrustedText, FENCE_PREFACE } from './engines/jev/fence';
export { MockEngine, DEFAULT_MOCK_MODEL } from './engines/mock/mock.engine';
export * from './events/judgment.events';
export { AssessmentRecord } from './persistence/assessment-record.entity';
export { judgmentEntities, judgmentMigrations } from './persistence';
export type { Reviewer } from './persistence/reviewer';
export { AssessmentRecords, type RecordFilter } from './persistence/assessment-records.service';
export { type ResolutionPolicy } from './review/resolution-policy';
export {
  JUDGMENT_ASSESS_QUEUE,
  JUDGMENT_DECIDE_QUEUE,
  type JudgmentQueueOptions,
  type JudgmentWorkerOptions,
} from './queue/queue.options';
export { UnqueueableJudgment } from './queue/queue.errors';
export type { JudgmentPayload } from './queue/judgment.payload';
export type { AssessJobData, DecideJobData } from './queue/queue.jobs-data';
export {
  Calibration,
  CalibrationBuilder,
  DEFAULT_CALIBRATION_CONCURRENCY,
  type CalibrationRunOptions,
} from './calibration/calibration.service';
export {
  CalibrationReport,
  CalibrationResult,
  type CalibrationBand,
  type CalibrationIdentity,
  type LikelihoodScore,
} from './calibration/calibration.report';
export { LabelledCase, type CaseTruth, type LabelledCaseOptions } from './calibration/labelled-case';
export type { Interval, ReliabilityBin } from './calibration/scoring';

// The optional Review HTTP adapter (JudgmentHttpModule) and the error envelope.
