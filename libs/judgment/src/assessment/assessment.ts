import type { Type } from '@nestjs/common';
import { type Decision, type Outcome, decisionMetadata } from '../definition/decision.decorator';
import { type Judgment, judgmentMetadata, judgmentName } from '../definition/judgment.decorator';
import {
  ImpureDecision,
  InvalidDecision,
  NoDefaultDecision,
  UndeclaredQuestion,
  UnscriptedQuestion,
  WrongQuestionKind,
} from '../errors';
import { Classification } from '../questions/classification';
import { Likelihood } from '../questions/likelihood';
import { LikelihoodSet } from '../questions/likelihood-set';
import { KIND_NAMES, type DeclaredQuestion, type QuestionMap } from '../questions/question';
import { Rating } from '../questions/rating';
import { ClassificationAnswer, LikelihoodAnswer, LikelihoodSetAnswer, RatingAnswer } from './answers';
import { Provenance } from './provenance';
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
 * What deciding an Assessment does besides computing the Outcome, fixed when the Assessment is made: the recorder's
 * link to its record for an Assessment the Judge made (or rebuilt from a record to decide it), compute-only otherwise.
 */
export interface DecisionRecording {
  /** Whether each Decision runs twice and must give the same Outcome (ImpureDecision otherwise): scripted answers. */
  readonly checksPurity: boolean;
  /** An instance of the default Decision class (through DI when the recorder made the link, so it can be overridden). */
  decisionOf(cls: Type<Decision>): Decision;
  /** Refuses, before it runs, a Decision that may not decide this Assessment (e.g. another Judgment's). */
  admit(assessment: Assessment<any>, decision: unknown): void;
  /** Records, logs and announces the Outcome; nothing for a compute-only Assessment. */
  decided(assessment: Assessment<any>, decision: Decision, outcome: Outcome): Promise<void>;
}

/** Deciding only computes the Outcome: a Replay, a hand-built Assessment. */
export const COMPUTE_ONLY: DecisionRecording = Object.freeze({
  checksPurity: false,
  decisionOf: (cls: Type<Decision>) => new cls(),
  admit: () => undefined,
  decided: async () => undefined,
});

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
   * `recording` says what deciding it records (nothing by default).
   */
  static fromAnswers<J extends Judgment>(
    judgment: J,
    questions: QuestionMap,
    encoded: EncodedAnswers,
    provenance: Provenance,
    recording: DecisionRecording = COMPUTE_ONLY,
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

  /** Applies the Judgment's default Decision (`@Judgment({ decision })`). */
  async outcome<O extends Outcome = Outcome>(): Promise<O> {
    const cls = judgmentMetadata(this.judgment.constructor).decision;
    if (!cls) throw new NoDefaultDecision(judgmentName(this.judgment));
    return this.decide(this.recording.decisionOf(cls as Type<Decision>) as Decision<J, O>);
  }

  /**
   * Applies a Decision and hands the Outcome to this Assessment's `recording`: for an Assessment the Judge produced
   * (or one rebuilt from a record to decide it) that is the recorder's link, which records, logs and announces the
   * decision; for a Replay or a hand-built one the Outcome is only computed. Scripted answers run the Decision twice
   * to check it is pure.
   */
  async decide<O extends Outcome>(decision: Decision<J, O>): Promise<O> {
    this.recording.admit(this, decision);
    const outcome = applyDecision(this, decision);
    if (this.recording.checksPurity) {
      const again = applyDecision(this, decision);
      if (again !== outcome) throw new ImpureDecision(decisionMetadata(decision.constructor).name, outcome, again);
    }
    await this.recording.decided(this, decision as Decision, outcome);
    return outcome;
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
    return answer;
  }
}

function applyDecision<J extends Judgment, O extends Outcome>(assessment: Assessment<J>, decision: Decision<J, O>): O {
  if (decision === null || typeof decision !== 'object' || typeof decision.decide !== 'function') {
    throw new InvalidDecision(
      `${describeDecision(decision)} is not a Decision: pass an instance of a @Decision() class with a ` +
        'decide(assessment, judgment) method.',
    );
  }
  const metadata = decisionMetadata(decision.constructor);
  const outcome = decision.decide(assessment, assessment.judgment);
  if (outcome !== null && typeof (outcome as { then?: unknown })?.then === 'function') {
    throw new InvalidDecision(
      `${metadata.name}.decide() returned a Promise. A Decision is pure and synchronous: compute the Outcome from the ` +
        'Assessment and the Judgment only.',
    );
  }
  if (!metadata.outcomes.includes(outcome)) {
    throw new InvalidDecision(
      `${metadata.name}.decide() returned ${JSON.stringify(outcome)}, which is not one of its outcomes ` +
        `(${metadata.outcomes.map((o) => JSON.stringify(o)).join(', ')}).`,
    );
  }
  return outcome;
}

function describeDecision(decision: unknown): string {
  if (decision === null || decision === undefined) return String(decision);
  if (typeof decision === 'function') return `The class ${decision.name} (not an instance)`;
  return (decision as object).constructor?.name ?? typeof decision;
}

function decodeAnswer(judgment: string, key: string, question: DeclaredQuestion, value: EncodedAnswer): AnyAnswer {
  const bad = (expected: string) =>
    new TypeError(`The answer to "${key}" on ${judgment} is not ${expected}: ${JSON.stringify(value)}.`);
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

function isProbability(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= 1;
}

function encodeAnswer(answer: AnyAnswer): EncodedAnswer {
  if (answer instanceof LikelihoodAnswer) return answer.probability;
  if (answer instanceof RatingAnswer) return [...answer.probabilities];
  if (answer instanceof ClassificationAnswer) return { ...(answer.probabilities as Record<string, number>) };
  return Object.fromEntries(Object.entries(answer.likelihoods).map(([label, l]) => [label, l.probability]));
}
