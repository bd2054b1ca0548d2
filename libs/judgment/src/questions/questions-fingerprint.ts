import { fingerprint } from '../fingerprint/fingerprint';
import { Classification } from './classification';
import { Likelihood } from './likelihood';
import { LikelihoodSet } from './likelihood-set';
import type { DeclaredQuestion, QuestionMap } from './question';

/**
 * The fingerprint of a question set: SHA-256 of canonical JSON over each Question's kind, text, criteria and labels.
 * Any change of wording, kind, meaning, label, description or level changes it; the order of the keys does not
 * (canonical JSON sorts them), while label and level order does (they are described as lists).
 */
export function questionsFingerprint(questions: QuestionMap): string {
  const described: Record<string, unknown> = {};
  for (const [key, question] of Object.entries(questions)) described[key] = describeQuestion(question);
  return fingerprint(described);
}

function describeQuestion(question: DeclaredQuestion): unknown {
  if (question instanceof LikelihoodSet) {
    return ['likelihood_set', question.labels.map((label) => [label, ['likelihood', question.textOf(label), null]])];
  }
  if (question instanceof Likelihood) return ['likelihood', question.text, question.criteria];
  if (question instanceof Classification) return ['classification', question.text, question.criteria()];
  return ['rating', question.text, question.levels];
}
