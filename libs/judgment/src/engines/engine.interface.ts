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
  /**
   * How this round treats the connection's rate limits (`limits`, and the Engine's own 429): set by whoever starts
   * the round — the queue's assess job, a calibration run — and passed down to the HTTP client. Default LIVE_LIMITS.
   */
  readonly limits?: LimitMode;
}

/** Which share of a connection's limits a round may use: live traffic first, bulk (calibration) within its share. */
export type LimitLane = 'live' | 'bulk';

/** How one round treats the connection's rate limits. */
export interface LimitMode {
  /**
   * True in a queued assess job: a refusal (no slot, or the Engine's 429) throws EngineRateLimitDeferred at once
   * instead of waiting in the process, so the job goes back to the queue and the queue pauses.
   */
  readonly defer: boolean;
  readonly lane: LimitLane;
}

/** An inline call's round: live traffic, waiting for a slot up to `limiter.maxWait`. */
export const LIVE_LIMITS: LimitMode = Object.freeze({ defer: false, lane: 'live' });
/** A queued assess job's round: live traffic, a refusal handed back to the queue at once. */
export const QUEUED_LIMITS: LimitMode = Object.freeze({ defer: true, lane: 'live' });
/** A calibration run's round: bulk work within its share of each window, waiting like an inline call. */
export const BULK_LIMITS: LimitMode = Object.freeze({ defer: false, lane: 'bulk' });

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
  /**
   * True for an Engine whose answers are written in advance rather than asked of a model: a script (the testing kit's
   * fake Judge answers this way), a replay of known answers. Optional, default false. The Judge then accepts a round
   * that leaves Questions unanswered (reading one throws UnscriptedQuestion), never caches or reuses its answers,
   * counts no cost for it and does not watch it for signal collapse, and decides its Assessments by running each
   * Decision twice, to check that it is pure (ImpureDecision): no model's answer is at stake.
   */
  readonly scripted?: boolean;
}
