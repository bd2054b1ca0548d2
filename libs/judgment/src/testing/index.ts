// `nestjs-judgment/testing`: fakes for testing Judgments and Decisions without an Engine.
export {
  fakeAssessment,
  FakeAssessmentBuilder,
  DEFAULT_FAKE_CONFIDENCE,
  type FakeConfidence,
  type ScriptedAnswer,
} from './fake-assessment';
export { FakeJudge, fakeJudge, type JudgmentPredicate, type ReviewPredicate } from './fake-judge';
export { JudgmentTestingModule, type JudgmentTestingOptions } from './judgment-testing.module';
export {
  sequence,
  SequenceScript,
  type JudgmentScripts,
  type Script,
  type ScriptFunction,
  type ScriptedAnswers,
  type SingleScript,
} from './scripts';
// The Engine boundary's seam the fake replaces (`overrideProvider(AnswerSource).useValue(fakeJudge(scripts))`).
export { AnswerSource } from '../judge/answer-source';
// `judgment check` as a test: `app.get(JudgmentChecks).run()` in the app's suite fails on what startup would refuse.
export { JudgmentChecks } from '../checks/judgment-checks.service';
export type { CheckFinding, CheckReport, CheckSeverity } from '../errors';
// The errors the fakes throw, and those of declarations and configuration: a test may expect them.
export {
  JudgmentAssertionError,
  ImpureDecision,
  UnscriptedJudgment,
  UnscriptedQuestion,
  ExhaustedSequence,
  InvalidScript,
  InvalidProbability,
  UndeclaredLevel,
  JudgmentCheckFailed,
  InvalidQuestion,
  InvalidEvidence,
  MissingEvidencePath,
  InvalidJudgment,
  InvalidDecision,
  DuplicateJudgmentName,
  NoDefaultDecision,
  UnknownJudgmentName,
  UnknownDecision,
  UndeclaredQuestion,
  WrongQuestionKind,
  UndeclaredLabel,
  UnqueueableJudgment,
  InvalidConfiguration,
  InvalidRateLimit,
  InvalidPrice,
  EngineNotConfigured,
  UnpinnedModel,
} from '../errors';
