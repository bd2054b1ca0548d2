import type { Provenance } from '../assessment/provenance';
import type { EvidenceMap } from '../definition/evidence';
import type { Question } from '../questions/question';

/**
 * What an Engine is asked: the expanded Questions (Likelihood Sets as `set.label` Likelihoods) in declaration order,
 * and the Evidence as declared (UntrustedText values at their paths). Never the Judgment, a Decision or Outcomes.
 */
export interface EngineRequest {
  readonly questions: ReadonlyMap<string, Question>;
  readonly evidence: EvidenceMap;
}

/** One answer: Likelihood → probability; Classification → option → probability; Rating → probabilities, lowest first. */
export type EngineAnswer = number | Readonly<Record<string, number>> | readonly number[];

/** What an Engine returns: an answer per asked key, and where it came from. */
export interface EngineResponse {
  readonly answers: Readonly<Record<string, EngineAnswer>>;
  readonly provenance: Provenance;
}

/** An answering backend. One call answers every Question of one Judgment (one round). */
export interface Engine {
  answer(request: EngineRequest): Promise<EngineResponse>;
  /** The model the connection is configured to ask (alias or exact version). */
  model(): string;
  /**
   * What this connection cannot ask among these Questions (e.g. more options than the driver can read), one sentence
   * each naming the question key and the fix; empty when it can ask them all. Checked without any network call, at
   * startup and by `judgment check`. Optional: an Engine without it is assumed to ask anything.
   */
  refusals?(questions: ReadonlyMap<string, Question>): readonly string[];
}
