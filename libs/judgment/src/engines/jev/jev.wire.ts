import type { EvidenceMap } from '../../definition/evidence';
import { MalformedEngineResponse } from '../../errors';
import { KIND_NAMES, type Question } from '../../questions/question';
import type { EngineAnswer } from '../engine.interface';
import { fencedEvidenceJson } from './fence';
import { describeOrigin, type ResponseOrigin } from '../http/status-errors';
import {
  MAX_PROVENANCE_BODY_CHARS,
  PROVENANCE_HEAD_CHARS,
  nestsDeeperThan,
  redact,
  redactParsed,
  shorten,
  tokenCounts,
} from '../http/foreign-json';

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
  /**
   * The parsed body minus what was read out of it (kept as Provenance `response`, so the record holds nothing twice):
   * each answer without its probabilities (`noul` / `probabilities`, now the answer) and the confidence read from it,
   * and no `usage` when its token counts are all of it. A body too deep or too long is kept as its truncated head.
   */
  readonly unread: Record<string, unknown>;
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
  secret: string | null = null,
): JevReading {
  // The key is blanked out of everything taken from the response before it can be stored, logged or thrown.
  const cleaned = redact(text, secret);
  const deep = nestsDeeperThan(cleaned);
  const parsed = parseObject(cleaned);
  const body = parsed && !deep ? (redactParsed(parsed, cleaned, secret) as Record<string, unknown>) : parsed;
  if (!body) throw unreadable(origin, 'it is not a JSON object');
  const answers = body.answers;
  if (!isObject(answers)) throw unreadable(origin, 'it has no "answers" object');
  const named = isObject(body.routing) && body.routing.model ? body.routing.model : body.model;
  if (typeof named !== 'string' || named === '') throw unreadable(origin, 'it names no model');
  const model = shorten(redact(named, secret), 200);

  const read: Array<[string, EngineAnswer]> = [];
  const confidence: Array<[string, number]> = [];
  const rest: Array<[string, Record<string, unknown>]> = [];
  for (const [key, answer] of Object.entries(answers)) {
    const question = questions.get(key);
    if (!question) {
      throw new MalformedEngineResponse(
        `The Engine answered Question "${shorten(redact(key, secret), 100)}", which was not asked (${describeOrigin(origin)}).`,
        { requestId: origin.requestId },
      );
    }
    const value = readAnswer(question, answer);
    if (typeof value === 'string') {
      throw new MalformedEngineResponse(
        `The Engine's answer to Question "${key}" is unreadable (${describeOrigin(origin)}): expected a ` +
          `${KIND_NAMES[question.kind]} answer, but ${shorten(redact(value, secret), 300)}.`,
        { requestId: origin.requestId },
      );
    }
    read.push([key, value]);
    const { [READ_FIELDS[question.kind]]: _read, ...others } = answer as Record<string, unknown>;
    const engineConfidence = probability(others.confidence);
    if (engineConfidence !== null) {
      confidence.push([key, engineConfidence]);
      delete others.confidence;
    }
    rest.push([key, others]);
  }
  const usage = tokenCounts(body.usage);
  let unread: Record<string, unknown>;
  if (deep || cleaned.length > MAX_PROVENANCE_BODY_CHARS) {
    unread = { truncated: true, length: cleaned.length, head: cleaned.slice(0, PROVENANCE_HEAD_CHARS) };
  } else {
    const { usage: reported, ...others } = body;
    const counted = reported === undefined || JSON.stringify(reported) === JSON.stringify(usage);
    unread = { ...others, answers: Object.fromEntries(rest), ...(counted ? {} : { usage: reported }) };
  }
  return { answers: Object.fromEntries(read), model, usage, confidence: Object.fromEntries(confidence), unread };
}

/** The field of a Jev answer that holds its probabilities, by Question kind. */
const READ_FIELDS = { likelihood: 'noul', classification: 'probabilities', rating: 'probabilities' } as const;

/** The token counts a 2xx body reports, whatever else is wrong with it (a rejected answer was paid for too). */
export function reportedUsage(text: string): Record<string, number> | null {
  const body = parseObject(text);
  return body ? tokenCounts(body.usage) : null;
}

/**
 * How far a distribution of `options` probabilities may sum from 1: the Engine rounds each to 2 decimals, so up to
 * half a hundredth per option, at least 0.02 and at most 0.1.
 */
export function sumTolerance(options: number): number {
  return Math.min(0.1, Math.max(0.02, Math.round(5 * options) / 1000));
}

/**
 * Whether probabilities summing to `sum` are within the tolerance of 1. The comparison allows floating-point error
 * (0.53 + 0.17 + 0.17 + 0.15 is 1.0200000000000002 in doubles): a sum of exactly the stated tolerance is accepted.
 */
function sumsToOne(sum: number, options: number): boolean {
  return Math.abs(sum - 1) <= sumTolerance(options) + 1e-9;
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
  const sum = [...given.values()].reduce((total: number, value) => total + (value as number), 0);
  if (!sumsToOne(sum, given.size)) {
    return `its probabilities sum to ${Number(sum.toFixed(4))} instead of 1 (±${sumTolerance(given.size)})`;
  }

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

/** A JSON number in 0..1, or null: the Jev wire sends numbers, so strings such as "0x1" or "+0.5" are refused. */
function probability(value: unknown): number | null {
  return typeof value === 'number' && value >= 0 && value <= 1 ? value : null;
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
