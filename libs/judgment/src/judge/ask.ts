import { Assessment, type DecisionRecording, type EncodedAnswer } from '../assessment/assessment';
import { Provenance } from '../assessment/provenance';
import { COMPUTE_ONLY } from '../decision/apply-decision';
import { type EvidenceMap, prepareEvidence } from '../definition/evidence';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import type { Engine, EngineResponse, LimitMode } from '../engines/engine.interface';
import { EngineFailed, MalformedEngineResponse } from '../errors';
import { type DeclaredQuestion, type QuestionMap, expandQuestions } from '../questions/question';

/** What one Engine round is asked with. */
export interface AskRequest {
  /** The declared Questions (already read with `readQuestions`). */
  readonly questions: QuestionMap;
  /** The Evidence to show, UntrustedText at its paths. */
  readonly evidence: EvidenceMap;
  readonly engine: Engine;
  /** How the round treats the connection's rate limits (default: live, waiting for a slot). */
  readonly limits?: LimitMode;
}

/**
 * One Engine round over the Judgment's Questions, read into an Assessment: expand Likelihood Sets, ask, check the
 * answered keys, regroup. Nothing is cached, recorded, announced or logged, and the Assessment is not linked (deciding
 * it only computes). Whatever the Engine's answer() or the reading of its response throws is an Engine failure,
 * thrown as EngineFailed; errors raised before asking (a direct key colliding with a set key) pass through.
 */
export async function ask<J extends Judgment>(judgment: J, request: AskRequest): Promise<Assessment<J>> {
  const name = judgmentName(judgment);
  const questions = expandQuestions(name, request.questions);
  const evidence = prepareEvidence(request.evidence).shown;
  try {
    const response = await request.engine.answer({ questions, evidence, limits: request.limits });
    return readAnswers(judgment, request.questions, response);
  } catch (error) {
    throw EngineFailed.wrap(name, error);
  }
}

/** How `readAnswers` treats a response. */
export interface ReadOptions {
  /** What deciding the Assessment records (nothing by default). */
  readonly recording?: DecisionRecording;
  /** Scripted answers may leave whole Questions unanswered (reading one throws UnscriptedQuestion). */
  readonly partial?: boolean;
}

/**
 * Checks the Engine returned an `{ answers, provenance }` response answering exactly the asked keys, regroups
 * Likelihood Sets under their keys and builds the Assessment; a response that fails the checks is a
 * MalformedEngineResponse (carrying its request id when it has one).
 */
export function readAnswers<J extends Judgment>(
  judgment: J,
  questions: QuestionMap,
  response: EngineResponse,
  { recording = COMPUTE_ONLY, partial = false }: ReadOptions = {},
): Assessment<J> {
  const name = judgmentName(judgment);
  const { answers, provenance } = (response ?? {}) as Partial<EngineResponse>;
  if (
    answers === null ||
    typeof answers !== 'object' ||
    Array.isArray(answers) ||
    !(provenance instanceof Provenance)
  ) {
    throw new MalformedEngineResponse(
      `The Engine returned no { answers, provenance } response for ${name}: its answer() must resolve to ` +
        '{ answers: { key: answer }, provenance: new Provenance(...) }.',
    );
  }
  const has = (key: string) => Object.prototype.hasOwnProperty.call(answers, key);
  const answered = partial ? pickAnswered(questions, has) : questions;
  const expanded = expandQuestions(name, answered);
  const requestId = provenance.requestId;
  for (const key of expanded.keys()) {
    if (!has(key)) {
      throw new MalformedEngineResponse(`The Engine did not answer Question "${key}" of ${name}.`, { requestId });
    }
  }
  for (const key of Object.keys(answers)) {
    if (!expanded.has(key)) {
      throw new MalformedEngineResponse(`The Engine answered Question "${key}", which ${name} does not ask.`, {
        requestId,
      });
    }
  }
  const encoded: Record<string, EncodedAnswer> = {};
  for (const [key, question] of Object.entries(answered)) encoded[key] = regroup(key, question, answers);
  try {
    return Assessment.fromAnswers(judgment, questions, encoded, provenance, recording);
  } catch (error) {
    throw new MalformedEngineResponse(`The Engine's answers to ${name} are unreadable: ${(error as Error).message}`, {
      requestId,
      cause: error,
    });
  }
}

/** The declared Questions the response answers: a Likelihood Set counts when any of its labels is answered. */
function pickAnswered(questions: QuestionMap, has: (key: string) => boolean): QuestionMap {
  return Object.fromEntries(
    Object.entries(questions).filter(([key, question]) =>
      question.kind === 'likelihood_set' ? question.labels.some((label) => has(`${key}.${label}`)) : has(key),
    ),
  );
}

/** The declared key's answer from the Engine's expanded answers (a Likelihood Set gathers its `set.label` keys). */
function regroup(key: string, question: DeclaredQuestion, answers: EngineResponse['answers']): EncodedAnswer {
  if (question.kind !== 'likelihood_set') return answers[key];
  return Object.fromEntries(question.labels.map((label) => [label, answers[`${key}.${label}`] as number]));
}
