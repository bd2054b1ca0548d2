// `nestjs-judgment/testing`: fakes for testing Judgments and Decisions without an Engine.
export {
  fakeAssessment,
  FakeAssessmentBuilder,
  DEFAULT_FAKE_CONFIDENCE,
  type FakeConfidence,
  type ScriptedAnswer,
} from './fake-assessment';
