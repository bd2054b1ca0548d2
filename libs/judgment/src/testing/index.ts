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
export { JudgmentAssertionError } from './judgment-assertion.error';
