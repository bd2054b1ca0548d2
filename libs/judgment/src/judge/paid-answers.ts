import { LRUCache } from 'lru-cache';
import type { EncodedAnswer } from '../assessment/assessment';
import { Provenance } from '../assessment/provenance';
import type { EngineAnswer } from '../engines/engine.interface';
import type { AnsweredBeforeFailure } from '../errors';
import type { Question, QuestionMap } from '../questions/question';
import type { PaidAnswers } from './judge.types';

/** Rounds that failed part way kept for a retry in this process: at most this many, */
export const PARTIAL_ROUNDS_KEPT = 1_000;
/** for at most this long (an hour): a retry comes within minutes, and the answers are the pinned model's. */
export const PARTIAL_ROUNDS_TTL_MS = 3_600_000;

/**
 * The answers of rounds that failed after some of their Questions were answered, by attempt key (the Judgment, its
 * Questions and Evidence fingerprints, the connection, its driver and model: what the Assessment cache keys on), so
 * that a retry of the same Judgment in this process asks only the other Questions. A queued job keeps them in its
 * progress instead, for whichever worker runs the retry.
 */
export class PartialRounds {
  private readonly kept = new LRUCache<string, PaidAnswers>({ max: PARTIAL_ROUNDS_KEPT, ttl: PARTIAL_ROUNDS_TTL_MS });

  /** Whether nothing is kept: the Judge then computes no key. */
  get empty(): boolean {
    return this.kept.size === 0;
  }

  /** The answers kept under `key`, removed: one retry uses them. */
  take(key: string): PaidAnswers | undefined {
    const paid = this.kept.get(key);
    if (paid) this.kept.delete(key);
    return paid;
  }

  keep(key: string, paid: PaidAnswers): void {
    this.kept.set(key, paid);
  }
}

/** Paid answers by asked key: a Likelihood Set's declared `{ label: p }` (the record's form) spread to `set.label`. */
export function askedAnswers(questions: QuestionMap, answers: PaidAnswers['answers']): Record<string, EngineAnswer> {
  const asked: Record<string, EngineAnswer> = {};
  for (const [key, value] of Object.entries(answers)) {
    const question = Object.prototype.hasOwnProperty.call(questions, key) ? questions[key] : undefined;
    if (question?.kind === 'likelihood_set' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [label, p] of Object.entries(value)) asked[`${key}.${label}`] = p;
    } else asked[key] = value;
  }
  return asked;
}

/** The asked Questions that `answers` (by asked key) leave unanswered, in the order they are asked. */
export function unansweredQuestions(
  expanded: ReadonlyMap<string, Question>,
  answers: Readonly<Record<string, EngineAnswer>>,
): Map<string, Question> {
  return new Map([...expanded].filter(([key]) => !Object.prototype.hasOwnProperty.call(answers, key)));
}

/** Answers by asked key as the record holds them: by declared key, a Likelihood Set's answered labels under its key. */
export function declaredAnswers(
  questions: QuestionMap,
  answers: Readonly<Record<string, EngineAnswer>>,
): Record<string, EncodedAnswer> {
  const has = (key: string) => Object.prototype.hasOwnProperty.call(answers, key);
  const declared: Record<string, EncodedAnswer> = {};
  for (const [key, question] of Object.entries(questions)) {
    if (question.kind !== 'likelihood_set') {
      if (has(key)) declared[key] = answers[key];
      continue;
    }
    const labels = question.labels.filter((label) => has(`${key}.${label}`));
    if (labels.length > 0) {
      declared[key] = Object.fromEntries(labels.map((label) => [label, answers[`${key}.${label}`] as number]));
    }
  }
  return declared;
}

/** The Provenance of paid answers. */
export function paidProvenance(paid: PaidAnswers | AnsweredBeforeFailure): Provenance {
  if (paid.provenance instanceof Provenance) return paid.provenance;
  const { engine, model, requestId, details, questionModels } = paid.provenance;
  return new Provenance(engine, model, requestId, details, questionModels);
}

/**
 * The Provenance of a round that asked only the Questions earlier answers left: the new round's, the model of each
 * Question kept (the earlier answers' too, so the drift guard checks every model that answered), noting in
 * `details.reused` which answers came from before, from which model and request, and which record holds them.
 */
export function withReused(
  provenance: Provenance,
  earlier: PaidAnswers,
  reused: readonly string[],
  asked: readonly string[],
): Provenance {
  const before = paidProvenance(earlier);
  const models = [
    ...reused.map((key): [string, string] => [key, before.modelOf(key)]),
    ...asked.map((key): [string, string] => [key, provenance.modelOf(key)]),
  ];
  const details = {
    ...provenance.details,
    reused: {
      record: earlier.record ?? null,
      questions: [...reused],
      engine: before.engine,
      model: before.model,
      requestId: before.requestId,
    },
  };
  return new Provenance(provenance.engine, provenance.model, provenance.requestId, details, Object.fromEntries(models));
}

/** Paid answers as plain JSON (what a queued job keeps in its progress). */
export function plainPaidAnswers(paid: PaidAnswers | AnsweredBeforeFailure): PaidAnswers {
  const { engine, model, requestId, details, questionModels } = paidProvenance(paid);
  return {
    answers: { ...paid.answers },
    provenance: { engine, model, requestId, details: { ...details }, questionModels: { ...questionModels } },
    record: paid.record ?? null,
  };
}
