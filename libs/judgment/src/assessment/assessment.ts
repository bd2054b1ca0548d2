import type { Type } from '@nestjs/common';
import { type Judgment, judgmentMetadata, judgmentName } from '../definition/judgment.decorator';
import type { Outcome } from '../definition/outcome';
import {
  NoDefaultDecision,
  UndeclaredQuestion,
  UnrebuildableAssessment,
  UnscriptedQuestion,
  WrongQuestionKind,
} from '../errors';
import { Classification } from '../questions/classification';
import { Likelihood } from '../questions/likelihood';
import { LikelihoodSet } from '../questions/likelihood-set';
import { KIND_NAMES, type DeclaredQuestion, type QuestionMap } from '../questions/question';
import { Rating } from '../questions/rating';
import type { Decided } from './awaiting-review';
import { ClassificationAnswer, LikelihoodAnswer, LikelihoodSetAnswer, RatingAnswer } from './answers';
import { Provenance } from './provenance';
import { isTracing, noteRead } from './reading-trace';
import type {
  ClassificationKey,
  LabelsOf,
  LikelihoodKey,
  LikelihoodSetKey,
  NoneOf,
  QuestionsOf,
  RatingKey,
} from './typing';

/** One encoded answer, as records and the cache store it: Likelihood → p; Classification and Likelihood Set →
 *  label → p; Rating → list of p, lowest level first. */
export type EncodedAnswer = number | Readonly<Record<string, number>> | readonly number[];
export type EncodedAnswers = Readonly<Record<string, EncodedAnswer>>;

type AnyAnswer = LikelihoodAnswer | ClassificationAnswer | RatingAnswer | LikelihoodSetAnswer;

/**
 * What an Assessment is decided with: an object whose decide() maps it (and its Judgment) to an Outcome. A Decision
 * (decision/) is a Decider declared with @Decision(); the Assessment needs only this shape.
 */
export interface Decider<J extends Judgment = any, O extends Outcome = Outcome> {
  decide(assessment: Assessment<J>, judgment: J): O;
}

/**
 * How deciding an Assessment is done, fixed when the Assessment is made: the recorder's link to its record for an
 * Assessment the Judge made (or rebuilt from a record to decide it), compute-only otherwise (decision/). Either one
 * checks the Decision and its Outcome against the Decision's declaration.
 */
export interface DecisionRecording {
  /** An instance of the default Decision class (through DI when the recorder made the link, so it can be overridden). */
  decisionOf(cls: Type<unknown>): Decider;
  /**
   * Applies the Decision to the Assessment and resolves to its Outcome, or to AwaitingReview when the case goes to
   * Review; recorded, logged and announced when linked.
   */
  decide<J extends Judgment, O extends Outcome>(
    assessment: Assessment<J>,
    decision: Decider<J, O>,
  ): Promise<Decided<O>>;
}

/**
 * The Engine's answers to one Judgment's Questions: an immutable value, typed by the Judgment so that question keys,
 * kinds and labels are checked at compile time (and at run time).
 */
export class Assessment<J extends Judgment = Judgment> {
  /** The declared Questions as they were when the Assessment was made. */
  readonly questions: QuestionMap;
  private readonly answers: ReadonlyMap<string, AnyAnswer>;

  private constructor(
    readonly judgment: J,
    questions: QuestionMap,
    answers: Map<string, AnyAnswer>,
    readonly provenance: Provenance,
    /** Where deciding is recorded: the link to the record, given by whoever made the Assessment. */
    private readonly recording: DecisionRecording,
  ) {
    this.questions = Object.freeze({ ...questions });
    this.answers = answers;
    Object.freeze(this);
  }

  /**
   * Builds an Assessment from encoded answers (the record and cache encoding), read against the declared Questions.
   * Questions without an answer stay unanswered: reading them throws UnscriptedQuestion (only fakes leave gaps).
   * `recording` says how deciding it is done and recorded (`COMPUTE_ONLY` from decision/ records nothing).
   */
  static fromAnswers<J extends Judgment>(
    judgment: J,
    questions: QuestionMap,
    encoded: EncodedAnswers,
    provenance: Provenance,
    recording: DecisionRecording,
  ): Assessment<J> {
    const answers = new Map<string, AnyAnswer>();
    for (const [key, question] of Object.entries(questions)) {
      if (!Object.prototype.hasOwnProperty.call(encoded, key)) continue;
      answers.set(key, decodeAnswer(judgmentName(judgment), key, question, encoded[key]));
    }
    return new Assessment(judgment, questions, answers, provenance, recording);
  }

  /** The answer to a Likelihood. */
  likelihood(key: LikelihoodKey<J>): LikelihoodAnswer {
    return this.read(key, 'likelihood') as LikelihoodAnswer;
  }

  /** The answer to a Classification. */
  classification<K extends ClassificationKey<J>>(key: K): ClassificationAnswer<LabelsOf<J, K>, NoneOf<J, K>> {
    return this.read(key, 'classification') as unknown as ClassificationAnswer<LabelsOf<J, K>, NoneOf<J, K>>;
  }

  /** The answer to a Rating. */
  rating(key: RatingKey<J>): RatingAnswer {
    return this.read(key, 'rating') as RatingAnswer;
  }

  /** The answers to a Likelihood Set. */
  likelihoodSet<K extends LikelihoodSetKey<J>>(key: K): LikelihoodSetAnswer<LabelsOf<J, K>> {
    return this.read(key, 'likelihood_set') as unknown as LikelihoodSetAnswer<LabelsOf<J, K>>;
  }

  /** Whether a declared Question has an answer (only fakes leave some unanswered). */
  isAnswered(key: keyof QuestionsOf<J> & string): boolean {
    return this.answers.has(key);
  }

  /** The answers in the record encoding (declared keys; sets as label → probability). */
  encodedAnswers(): Record<string, EncodedAnswer> {
    const encoded: Record<string, EncodedAnswer> = {};
    for (const [key, answer] of this.answers) encoded[key] = encodeAnswer(answer);
    return encoded;
  }

  /**
   * Applies the Judgment's default Decision (`@Judgment({ decision })`): resolves to the Outcome when it is automatic,
   * to AwaitingReview (the Outcome and why) when the case goes to Review instead — a Review Outcome, or a guard that
   * sent an automatic Outcome to Review (calibration drift with `onDrift: 'review'`).
   */
  async outcome<O extends Outcome = Outcome>(): Promise<Decided<O>> {
    const cls = judgmentMetadata(this.judgment.constructor).decision;
    if (!cls) throw new NoDefaultDecision(judgmentName(this.judgment));
    return this.decide(this.recording.decisionOf(cls) as Decider<J, O>);
  }

  /**
   * Applies a Decision through this Assessment's `recording`: for an Assessment the Judge produced (or one rebuilt
   * from a record to decide it) that is the recorder's link, which records, logs and announces the decision; for a
   * Replay or a hand-built one the Outcome is only computed. Scripted answers run the Decision twice to check it is
   * pure. Resolves like `outcome()`: the Outcome, or AwaitingReview.
   */
  async decide<O extends Outcome>(decision: Decider<J, O>): Promise<Decided<O>> {
    return this.recording.decide(this, decision);
  }

  /** `{ judgment, engine, model, request_id }` for log lines. */
  logContext(): { judgment: string; engine: string; model: string; request_id: string | null } {
    return { judgment: judgmentName(this.judgment), ...this.provenance.logContext() };
  }

  private read(key: string, kind: DeclaredQuestion['kind']): AnyAnswer {
    const question = this.questions[key];
    const name = judgmentName(this.judgment);
    if (!question || !Object.prototype.hasOwnProperty.call(this.questions, key)) {
      throw new UndeclaredQuestion(name, String(key), Object.keys(this.questions));
    }
    if (question.kind !== kind) throw new WrongQuestionKind(name, key, KIND_NAMES[question.kind], KIND_NAMES[kind]);
    const answer = this.answers.get(key);
    if (!answer) throw new UnscriptedQuestion(name, key);
    if (isTracing()) noteRead(answer, key, kind, tracedValue(answer));
    return answer;
  }
}

function decodeAnswer(judgment: string, key: string, question: DeclaredQuestion, value: EncodedAnswer): AnyAnswer {
  const bad = (expected: string) =>
    new UnrebuildableAssessment(`The answer to "${key}" on ${judgment} is not ${expected}: ${JSON.stringify(value)}.`);
  if (question instanceof Likelihood) {
    if (!isProbability(value)) throw bad('a probability from 0 to 1');
    return new LikelihoodAnswer(value);
  }
  if (question instanceof Rating) {
    if (!Array.isArray(value) || value.length !== question.levels.length || !value.every(isProbability)) {
      throw bad(`a list of ${question.levels.length} probabilities from 0 to 1`);
    }
    return new RatingAnswer(value, question.levels);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('a label → probability map');
  const map = value as Record<string, unknown>;
  const labels = question instanceof Classification ? question.options() : (question as LikelihoodSet).labels;
  const entries = labels.map((label) => {
    const probability = map[label];
    if (probability === undefined) throw bad(`a probability for every label (missing "${label}")`);
    if (!isProbability(probability)) throw bad(`a probability from 0 to 1 for every label (not for "${label}")`);
    return [label, probability] as [string, number];
  });
  return question instanceof Classification
    ? new ClassificationAnswer(key, entries, question.allowsNone)
    : new LikelihoodSetAnswer(key, entries);
}

/** What a decision trace shows of an answer read: the number thresholds compare, or the winning label. */
function tracedValue(answer: AnyAnswer): number | string | null {
  if (answer instanceof LikelihoodAnswer) return answer.probability;
  if (answer instanceof RatingAnswer) return answer.expected;
  if (answer instanceof ClassificationAnswer) return answer.label;
  return null;
}

function isProbability(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= 1;
}

function encodeAnswer(answer: AnyAnswer): EncodedAnswer {
  if (answer instanceof LikelihoodAnswer) return answer.probability;
  if (answer instanceof RatingAnswer) return [...answer.probabilities];
  if (answer instanceof ClassificationAnswer) return { ...(answer.probabilities as Record<string, number>) };
  return Object.fromEntries(Object.entries(answer.likelihoods).map(([label, l]) => [label, l.probability]));
}
