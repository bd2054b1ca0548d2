import { prepareEvidence } from '../definition/evidence';
import { type UnresolvedEvidencePath, unresolvedEvidencePaths } from '../definition/evidence-paths';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import type { AttemptContext } from '../persistence/record.writer';
import { type Question, type QuestionMap, expandQuestions, readQuestions } from '../questions/question';
import { questionsFingerprint } from '../questions/questions-fingerprint';

/** A Judgment read once before anything is asked: what its records share, and what an Engine would be asked. */
export interface DescribedAttempt extends AttemptContext {
  readonly questions: QuestionMap;
  /** The expanded Questions (Likelihood Sets as `set.label`), checked for key collisions. */
  readonly expanded: ReadonlyMap<string, Question>;
  readonly missingEvidencePaths: readonly UnresolvedEvidencePath[];
}

/**
 * Reads a Judgment's questions() then evidence() once, validating both (declaration errors, set-key collisions and
 * un-encodable Evidence surface here, before any Engine could be asked), and finds the backticked Evidence paths the
 * questions name that the Evidence does not have.
 */
export function describeAttempt(judgment: Judgment): DescribedAttempt {
  const name = judgmentName(judgment);
  const questions = readQuestions(name, judgment.questions());
  const expanded = expandQuestions(name, questions);
  const evidence = prepareEvidence(judgment.evidence());
  return {
    name,
    judgment,
    questions,
    expanded,
    evidence,
    missingEvidencePaths: unresolvedEvidencePaths(expanded, evidence.json),
    questionsFingerprint: questionsFingerprint(questions),
    language: judgment.language?.() ?? null,
  };
}
