import type { EvidenceMap } from '../../definition/evidence';
import { MalformedEngineResponse } from '../../errors';
import { KIND_NAMES, type Question } from '../../questions/question';
import type { EngineAnswer } from '../engine.interface';
import { fencedEvidenceJson } from './fence';
import { describeOrigin, type ResponseOrigin } from './jev.errors';

/** The Jev type each Question kind is asked as. */
const JEV_TYPES = { likelihood: 'noul', classification: 'choice', rating: 'score' } as const;

/**
 * The JSON text of a `POST /v1/systemone` body: `{ model, state, questions }`. Built by hand so question keys and
 * labels keep their declaration order (a JS object would move integer-like keys such as "10" before "2").
 */
export function requestBody(model: string, evidence: EvidenceMap, questions: ReadonlyMap<string, Question>): string {
  const asked = [...questions].map(([key, question]) => `${JSON.stringify(key)}:${questionJson(question)}`);
  return `{"model":${JSON.stringify(model)},"state":${fencedEvidenceJson(evidence)},"questions":{${asked.join(',')}}}`;
}

function questionJson(question: Question): string {
  const head = `{"type":"${JEV_TYPES[question.kind]}","instructions":${JSON.stringify(question.text)}`;
  switch (question.kind) {
    case 'likelihood':
      return question.criteria === null
        ? `${head}}`
        : `${head},"criteria":${JSON.stringify({ true: question.criteria.true, false: question.criteria.false })}}`;
    case 'classification': {
      const options = question
        .criteria()
        .map(([label, description]) => `${JSON.stringify(label)}:${JSON.stringify(description)}`);
      return `${head},"criteria":{${options.join(',')}}}`;
    }
    case 'rating':
      return `${head},"criteria":${JSON.stringify(question.levels)}}`;
  }
}

/** A 2xx body read and checked against the Questions asked. */
export interface JevReading {
  readonly answers: Record<string, EngineAnswer>;
  /** The versioned model that answered: Laya's `routing.model`, else `model`. */
  readonly model: string;
  readonly usage: unknown;
  /** The Engine's own confidence per answer that carries one (audit only). */
  readonly confidence: Record<string, number>;
  /** The whole parsed body. */
  readonly body: Record<string, unknown>;
}

/**
 * Reads a 2xx body strictly. Throws MalformedEngineResponse, naming `origin` (connection and request id), when the
 * body is not JSON, lacks answers or a model, answers a Question that was not asked, or has an answer of the wrong
 * type or shape. Questions left unanswered are the caller's to detect.
 */
export function readResponse(
  text: string,
  questions: ReadonlyMap<string, Question>,
  origin: ResponseOrigin,
): JevReading {
  const body = parseObject(text);
  if (!body) throw unreadable(origin, 'it is not a JSON object');
  const answers = body.answers;
  if (!isObject(answers)) throw unreadable(origin, 'it has no "answers" object');
  const model = isObject(body.routing) && body.routing.model ? body.routing.model : body.model;
  if (typeof model !== 'string' || model === '') throw unreadable(origin, 'it names no model');

  const read: Array<[string, EngineAnswer]> = [];
  const confidence: Array<[string, number]> = [];
  for (const [key, answer] of Object.entries(answers)) {
    const question = questions.get(key);
    if (!question) {
      throw new MalformedEngineResponse(
        `The Engine answered Question "${key}", which was not asked (${describeOrigin(origin)}).`,
        { requestId: origin.requestId },
      );
    }
    const value = readAnswer(question, answer);
    if (typeof value === 'string') {
      throw new MalformedEngineResponse(
        `The Engine's answer to Question "${key}" is unreadable (${describeOrigin(origin)}): expected a ` +
          `${KIND_NAMES[question.kind]} answer, but ${value}.`,
        { requestId: origin.requestId },
      );
    }
    read.push([key, value]);
    const engineConfidence = probability((answer as Record<string, unknown>).confidence);
    if (engineConfidence !== null) confidence.push([key, engineConfidence]);
  }
  return {
    answers: Object.fromEntries(read),
    model,
    usage: body.usage ?? null,
    confidence: Object.fromEntries(confidence),
    body,
  };
}

/** The answer read as its Question's kind, or a phrase saying what is wrong with it. */
function readAnswer(question: Question, answer: unknown): EngineAnswer | string {
  if (!isObject(answer)) return 'it is not an object';
  const type = JEV_TYPES[question.kind];
  if (answer.type !== type) return `its type is ${JSON.stringify(answer.type)} instead of "${type}"`;
  if (question.kind === 'likelihood') {
    return probability(answer.noul) ?? 'its "noul" is not a probability between 0 and 1';
  }
  const probabilities = answer.probabilities;
  if (!isObject(probabilities) && !Array.isArray(probabilities)) return 'it has no "probabilities"';
  const given = new Map(Object.entries(probabilities).map(([key, value]) => [key, probability(value)]));
  const bad = [...given].find(([, value]) => value === null);
  if (bad) return `its probability of "${bad[0]}" is not a number between 0 and 1`;

  const expected =
    question.kind === 'classification' ? question.options() : question.levels.map((_, index) => `${index}`);
  const offered = new Set(expected);
  const missing = expected.filter((key) => !given.has(key));
  const extra = [...given.keys()].filter((key) => !offered.has(key));
  if (question.kind === 'rating') {
    if (missing.length > 0 || extra.length > 0) {
      const levels = quoteAll([...given.keys()]) || 'none';
      return `its probabilities cover the levels ${levels} instead of 0..${expected.length - 1}`;
    }
    return expected.map((level) => given.get(level) as number);
  }
  if (missing.length > 0) return `its probabilities leave out ${quoteAll(missing)}`;
  if (extra.length > 0) {
    return `its probabilities name ${quoteAll(extra)}, which ${extra.length === 1 ? 'was' : 'were'} not offered`;
  }
  return Object.fromEntries(given) as Record<string, number>;
}

/** A number in 0..1 (numeric strings accepted), or null. */
function probability(value: unknown): number | null {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return number >= 0 && number <= 1 ? number : null;
}

/** The JSON object in `text`, or null when it is not JSON or not an object. */
export function parseObject(text: string): Record<string, unknown> | null {
  try {
    const body: unknown = JSON.parse(text);
    return isObject(body) ? body : null;
  } catch {
    return null;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function unreadable(origin: ResponseOrigin, reason: string): MalformedEngineResponse {
  return new MalformedEngineResponse(
    `The Engine's response is unreadable (${describeOrigin(origin)}): ${reason}. Check that the connection's url points ` +
      'at a Jev or Laya server.',
    { requestId: origin.requestId },
  );
}

function quoteAll(keys: readonly string[]): string {
  return keys.map((key) => JSON.stringify(key)).join(', ');
}
