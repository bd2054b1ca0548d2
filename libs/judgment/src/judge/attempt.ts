import { prepareEvidence } from '../definition/evidence';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import type { AttemptContext } from '../persistence/record.writer';
import { type Question, type QuestionMap, expandQuestions, readQuestions } from '../questions/question';
import { questionsFingerprint } from '../questions/questions-fingerprint';

/** A Judgment read once before anything is asked: what its records share, and what an Engine would be asked. */
export interface DescribedAttempt extends AttemptContext {
  readonly questions: QuestionMap;
  /** The expanded Questions (Likelihood Sets as `set.label`), checked for key collisions. */
  readonly expanded: ReadonlyMap<string, Question>;
}

/**
 * Reads a Judgment's questions() then evidence() once, validating both (declaration errors, set-key collisions and
 * un-encodable Evidence surface here, before any Engine could be asked).
 */
export function describeAttempt(judgment: Judgment): DescribedAttempt {
  const name = judgmentName(judgment);
  const questions = readQuestions(name, judgment.questions());
  const expanded = expandQuestions(name, questions);
  return {
    name,
    judgment,
    questions,
    expanded,
    evidence: prepareEvidence(judgment.evidence()),
    questionsFingerprint: questionsFingerprint(questions),
    language: judgment.language?.() ?? null,
  };
}
