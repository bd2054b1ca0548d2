import { type EvidenceMap, type PreparedEvidence, prepareEvidence } from '../definition/evidence';
import { evidencePathPresence } from '../definition/evidence-paths';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import type { AttemptContext, UnresolvedEvidencePath } from '../persistence/record.writer';
import { evidencePathsIn } from '../questions/question-text';
import { type Question, type QuestionMap, expandQuestions, readQuestions } from '../questions/question';
import { questionsFingerprint } from '../questions/questions-fingerprint';

/** A Judgment read once before anything is asked: what its records share, and what an Engine would be asked. */
export interface DescribedAttempt extends AttemptContext {
  readonly questions: QuestionMap;
  /** The expanded Questions (Likelihood Sets as `set.label`), checked for key collisions. */
  readonly expanded: ReadonlyMap<string, Question>;
  /** The Evidence as the Judgment returned it (UntrustedText at its paths). */
  readonly evidenceMap: EvidenceMap;
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
  const evidenceMap = judgment.evidence();
  const evidence = prepareEvidence(evidenceMap);
  return {
    name,
    judgment,
    questions,
    expanded,
    evidenceMap,
    evidence,
    missingEvidencePaths: missingPaths(expanded, evidence),
    questionsFingerprint: questionsFingerprint(questions),
    language: judgment.language?.() ?? null,
  };
}

/** The backticked paths the questions name (`` `request.explanation` ``) that the prepared Evidence does not have. */
function missingPaths(expanded: ReadonlyMap<string, Question>, evidence: PreparedEvidence): UnresolvedEvidencePath[] {
  return [...expanded].flatMap(([key, question]) =>
    evidencePathsIn(question.text)
      .filter((path) => evidencePathPresence(evidence.json, path) === 'missing')
      .map((path) => ({ key, path })),
  );
}
