import type { Type } from '@nestjs/common';
import type { Judgment } from '../definition/judgment.decorator';
import { judgmentWithoutSubject } from '../definition/without-subject';
import { Classification } from '../questions/classification';
import { Likelihood } from '../questions/likelihood';
import { LikelihoodSet } from '../questions/likelihood-set';
import { type QuestionKind, readQuestions } from '../questions/question';
import { questionsFingerprint } from '../questions/questions-fingerprint';
import { Rating } from '../questions/rating';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { JudgmentRegistry } from '../registry/judgment.registry';

/** One option of a Question as a reviewer reads it: a Classification's label, a Set's label, a Rating's level. */
export interface QuestionOptionView {
  readonly name: string;
  /** What the option means: a label's description, a Set label's own question; null when the label says it all. */
  readonly text: string | null;
}

/** A Question as a reviewer reads it, under the key its answer is recorded by. */
export interface QuestionView {
  readonly kind: QuestionKind;
  /** The question asked; null for a Likelihood Set (each label is its own question). */
  readonly text: string | null;
  /** A Likelihood's meaning of yes and no, when declared. */
  readonly meaning: { readonly true: string; readonly false: string } | null;
  /** Rating levels lowest first (numbered from 0, as answers and thresholds count them), labels, or Set labels. */
  readonly options: readonly QuestionOptionView[];
}

/** The Questions of a record's Judgment as registered now, and whether they are the ones its answers belong to. */
export interface RecordQuestions {
  readonly questions: Readonly<Record<string, QuestionView>>;
  /** False when the Questions changed since the record was assessed (their fingerprint differs). */
  readonly current: boolean;
}

const read = new WeakMap<Type<Judgment>, { questions: Record<string, QuestionView>; fingerprint: string } | null>();

/**
 * The Questions of the record's Judgment, read from its registered class without a Subject (once per class), or null
 * when the Judgment is not registered or its Questions cannot be read without a Subject.
 */
export function recordQuestions(registry: JudgmentRegistry, record: AssessmentRecord): RecordQuestions | null {
  if (!registry.hasJudgment(record.judgment)) return null;
  const cls = registry.judgment(record.judgment);
  if (!read.has(cls)) read.set(cls, readOnce(record.judgment, cls));
  const known = read.get(cls);
  if (!known) return null;
  return { questions: known.questions, current: known.fingerprint === record.questionsFingerprint };
}

function readOnce(name: string, cls: Type<Judgment>) {
  try {
    const declared = readQuestions(name, judgmentWithoutSubject(cls).questions());
    const questions: Record<string, QuestionView> = {};
    for (const [key, question] of Object.entries(declared)) questions[key] = questionView(question);
    return { questions, fingerprint: questionsFingerprint(declared) };
  } catch {
    return null;
  }
}

function questionView(question: Likelihood | Classification | Rating | LikelihoodSet): QuestionView {
  if (question instanceof Likelihood) {
    return { kind: question.kind, text: question.text, meaning: question.criteria, options: [] };
  }
  if (question instanceof Rating) {
    const options = question.levels.map((level) => ({ name: level, text: null }));
    return { kind: question.kind, text: question.text, meaning: null, options };
  }
  if (question instanceof Classification) {
    const options = question.criteria().map(([name, text]) => ({ name, text }));
    return { kind: question.kind, text: question.text, meaning: null, options };
  }
  const options = question.labels.map((name) => ({ name, text: question.textOf(name) }));
  return { kind: question.kind, text: null, meaning: null, options };
}
