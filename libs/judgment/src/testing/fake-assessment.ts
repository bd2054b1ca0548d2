import { Assessment, type EncodedAnswer } from '../assessment/assessment';
import { Provenance } from '../assessment/provenance';
import { computeOnly } from '../decision/apply-decision';
import type {
  ClassificationKey,
  LabelsOf,
  LikelihoodKey,
  LikelihoodSetKey,
  NoneOf,
  QuestionsOf,
  RatingKey,
} from '../assessment/typing';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import {
  InvalidProbability,
  InvalidScript,
  UndeclaredLabel,
  UndeclaredLevel,
  UndeclaredQuestion,
  WrongQuestionKind,
} from '../errors';
import type { Classification } from '../questions/classification';
import type { LikelihoodSet } from '../questions/likelihood-set';
import { KIND_NAMES, type DeclaredQuestion, type QuestionMap, readQuestions } from '../questions/question';
import type { Rating } from '../questions/rating';
import type { NoneLabel } from '../assessment/answers';

/** A made fake computes its Outcomes only, running each Decision twice to check it is pure. */
const PURITY_CHECKED = computeOnly(true);

/** The Confidence a winning label or level gets when none is given. */
export const DEFAULT_FAKE_CONFIDENCE = 0.9;

/** Options of a winning label or level. */
export interface FakeConfidence {
  /** How far the winner beats the runner-up (0..1). */
  confidence?: number;
}

/** An answer as a script writes it: Likelihood → p; Classification → winning label or label → p; Rating → level or
 *  list of p; Likelihood Set → label → p. */
export type ScriptedAnswer = number | string | readonly number[] | Readonly<Record<string, number>>;

/**
 * Builds an Assessment without an Engine, strictly: undeclared keys, wrong kinds, undeclared labels or levels and
 * probabilities outside 0..1 throw; questions left unscripted throw UnscriptedQuestion when read; deciding the result
 * runs the Decision twice (ImpureDecision when the Outcomes differ).
 */
export class FakeAssessmentBuilder<J extends Judgment> {
  private readonly questions: QuestionMap;
  private readonly name: string;
  private readonly encoded: Record<string, EncodedAnswer> = {};

  constructor(private readonly judgment: J) {
    this.name = judgmentName(judgment);
    this.questions = readQuestions(this.name, judgment.questions());
  }

  /** Scripts a Likelihood's probability. */
  likelihood(key: LikelihoodKey<J>, probability: number): this {
    this.question<DeclaredQuestion>(key, 'likelihood');
    this.encoded[key] = checkProbability(probability, `probability of "${key}"`);
    return this;
  }

  /**
   * Scripts a Classification: a winning label (every option gets (1 − c)/n and the winner c more, so it beats the
   * runner-up by exactly c), or a label → probability map (unlisted labels get 0).
   */
  classification<K extends ClassificationKey<J>>(
    key: K,
    answer:
      LabelsOf<J, K> | NoneLabel<NoneOf<J, K>> | Partial<Record<LabelsOf<J, K> | NoneLabel<NoneOf<J, K>>, number>>,
    options: FakeConfidence = {},
  ): this {
    const question = this.question<Classification>(key, 'classification');
    const labels = question.options();
    if (typeof answer === 'string') {
      if (!labels.includes(answer)) throw new UndeclaredLabel('Classification', key, answer, labels);
      this.encoded[key] = winnerTakes(labels, labels.indexOf(answer), confidence(key, options));
    } else {
      this.encoded[key] = fromMap(key, 'Classification', labels, answer as Record<string, number>);
    }
    return this;
  }

  /** Scripts a Rating: a winning level (as for a label), or one probability per level, lowest first. */
  rating(key: RatingKey<J>, answer: number | readonly number[], options: FakeConfidence = {}): this {
    const question = this.question<Rating>(key, 'rating');
    const count = question.levels.length;
    if (Array.isArray(answer)) {
      if (answer.length !== count) throw new UndeclaredLevel(this.name, key, count, `a list of ${answer.length}`);
      this.encoded[key] = answer.map((p, level) => checkProbability(p, `probability of level ${level} of "${key}"`));
    } else {
      const level = answer as number;
      if (!Number.isInteger(level) || level < 0 || level >= count) {
        throw new UndeclaredLevel(this.name, key, count, `level ${String(level)}`);
      }
      // Keyed by index, not description: Rating level descriptions may repeat.
      const indexes = question.levels.map((_, index) => String(index));
      const winner = winnerTakes(indexes, level, confidence(key, options));
      this.encoded[key] = indexes.map((index) => winner[index]);
    }
    return this;
  }

  /** Scripts a Likelihood Set: label → probability (unlisted labels get 0). */
  likelihoodSet<K extends LikelihoodSetKey<J>>(key: K, answer: Partial<Record<LabelsOf<J, K>, number>>): this {
    const question = this.question<LikelihoodSet>(key, 'likelihood_set');
    this.encoded[key] = fromMap(key, 'Likelihood Set', question.labels, answer as Record<string, number>);
    return this;
  }

  /** Scripts several answers at once, each written as its kind's method takes it. */
  answers(answers: Partial<Record<keyof QuestionsOf<J> & string, ScriptedAnswer>>): this {
    for (const [key, answer] of Object.entries(answers) as Array<[string, ScriptedAnswer]>) {
      const question = this.questions[key];
      if (!question) throw new UndeclaredQuestion(this.name, key, Object.keys(this.questions));
      const self = this as unknown as FakeAssessmentBuilder<Judgment>;
      if (question.kind === 'likelihood') self.likelihood(key, answer as number);
      else if (question.kind === 'classification') self.classification(key, answer as string);
      else if (question.kind === 'rating') self.rating(key, answer as number);
      else self.likelihoodSet(key, answer as Record<string, number>);
    }
    return this;
  }

  /** The Assessment: only the scripted answers, Provenance engine and model `fake`. */
  make(): Assessment<J> {
    return Assessment.fromAnswers(
      this.judgment,
      this.questions,
      this.encoded,
      new Provenance('fake', 'fake'),
      PURITY_CHECKED,
    );
  }

  private question<Q extends DeclaredQuestion>(key: string, kind: DeclaredQuestion['kind']): Q {
    const question = this.questions[key];
    if (!question || !Object.prototype.hasOwnProperty.call(this.questions, key)) {
      throw new UndeclaredQuestion(this.name, key, Object.keys(this.questions));
    }
    if (question.kind !== kind)
      throw new WrongQuestionKind(this.name, key, KIND_NAMES[question.kind], KIND_NAMES[kind]);
    return question as Q;
  }
}

/** A fake Assessment builder for a Judgment. */
export function fakeAssessment<J extends Judgment>(judgment: J): FakeAssessmentBuilder<J> {
  return new FakeAssessmentBuilder(judgment);
}

function checkProbability(value: unknown, what: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new InvalidProbability(what, value);
  return value;
}

function confidence(key: string, options: FakeConfidence): number {
  return checkProbability(options.confidence ?? DEFAULT_FAKE_CONFIDENCE, `Confidence of "${key}"`);
}

function winnerTakes(labels: readonly string[], winner: number, c: number): Record<string, number> {
  const share = (1 - c) / labels.length;
  return Object.fromEntries(labels.map((label, index) => [label, index === winner ? share + c : share]));
}

function fromMap(
  key: string,
  kind: 'Classification' | 'Likelihood Set',
  labels: readonly string[],
  answer: Record<string, number>,
): Record<string, number> {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
    throw new InvalidScript(`Script the ${kind} "${key}" with a label → probability map.`);
  }
  for (const label of Object.keys(answer)) {
    if (!labels.includes(label)) throw new UndeclaredLabel(kind, key, label, labels);
  }
  return Object.fromEntries(
    labels.map((label) => [label, checkProbability(answer[label] ?? 0, `probability of "${key}.${label}"`)]),
  );
}
