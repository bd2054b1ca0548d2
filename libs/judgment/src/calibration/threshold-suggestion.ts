import type { Assessment } from '../assessment/assessment';
import { applyDecision } from '../decision/apply-decision';
import type { Decision, DecisionMetadata } from '../decision/decision.decorator';
import { type Thresholds, decisionThresholds, withThresholds } from '../decision/thresholds';
import type { Outcome } from '../definition/outcome';
import { InvalidSuggestion } from '../errors';
import { mulberry32 } from '../fingerprint/seeded-random';
import type { CalibrationIdentity } from './calibration.report';
import { type RecordedTraffic, TRAFFIC_WINDOW_DAYS } from './recorded-traffic';
import {
  type CandidateStatus,
  type CandidateTally,
  ESTIMATE_POWER,
  type TestedCandidate,
  casesNeeded,
  learnThenTest,
} from './learn-then-test';

/** What a suggestion must guarantee, and how it searches. */
export interface SuggestOptions {
  /** Largest acceptable error rate of the automatic Outcomes, in (0, 1), e.g. 0.05. */
  maxError: number;
  /** Probability that the chosen thresholds' error rate is at most maxError, in (0, 1), e.g. 0.95. */
  confidence: number;
  /** Largest acceptable share of cases sent to Review, in (0, 1] (a measured rate, not guaranteed). */
  maxReviewRate?: number;
  /**
   * Candidate values per threshold. Default: 0, 0.02, …, 1 for a threshold declared in [0, 1]; a threshold declared
   * outside [0, 1] keeps its declared value unless given here.
   */
  grid?: Readonly<Record<string, readonly number[]>>;
  /** Share of the cases that orders the candidates; the rest tests them (default 0.5). */
  learnFraction?: number;
  /** Seed of the random split of the cases into the two halves (default 1): the split never looks at the cases. */
  seed?: number;
  /**
   * Least width of each Review band, in (0, 1) (default 0.1): a candidate whose band is narrower — or closed, a single
   * cut-off between two automatic Outcomes — is never tested nor proposed.
   */
  minBand?: number;
  /**
   * The Review bands, as pairs of threshold names `[lower, upper]`: an answer from `lower` up to `upper` goes to
   * Review. Default: the pairs of thresholds in [0, 1] found to bound one (see `ReviewBand`).
   */
  reviewBands?: ReadonlyArray<readonly [string, string]>;
  /**
   * Cases Review can take per day (above 0), e.g. 40: a candidate whose review rate × `traffic.perDay` exceeds it is
   * not chosen. Checked only with a recorded traffic; `Calibration…suggest()` reads it from the records (decisions
   * per day over the last TRAFFIC_WINDOW_DAYS days) when `traffic` is not given.
   */
  maxReviewsPerDay?: number;
  /** The Judgment's decisions per day the review rate applies to; null or absent: none recorded. */
  traffic?: RecordedTraffic | null;
  /**
   * On a Judgment with an escalation cascade: what the tiers' thresholds minimise among the certified ones — 'cost'
   * per decision (default; every tier's connection must declare a price), or 'review' (the fewest reviews).
   */
  objective?: 'cost' | 'review';
}

/** The review load a suggestion was held to, at the recorded traffic. */
export interface CapacityCheck {
  readonly maxReviewsPerDay: number;
  /** The recorded traffic, or null when none is recorded (then capacity is not checked). */
  readonly traffic: RecordedTraffic | null;
  /** The review rate the capacity allows at that traffic (capped at 1), or null without traffic. */
  readonly maxReviewRate: number | null;
  /** Reviews per day of the chosen candidate at that traffic, or null. */
  readonly chosenReviewsPerDay: number | null;
  /** What was checked, in a sentence. */
  readonly statement: string;
}

/** Default least width of a Review band (`minBand`, `--min-band`). */
export const DEFAULT_MIN_BAND = 0.1;

/**
 * A Review band between two thresholds. Unless declared (`reviewBands`, `--band lower:upper`), a pair of thresholds in
 * [0, 1] bounds one when closing it with the current thresholds — the upper one lowered to the lower, or the lower
 * raised to the upper — sends no more of the cases to Review, and one of the two sends fewer.
 */
export interface ReviewBand {
  readonly lower: string;
  readonly upper: string;
  /** Given by the caller, rather than found. */
  readonly declared: boolean;
}

/** Largest grid a suggestion searches. */
export const MAX_CANDIDATES = 250_000;
/** Default step of a threshold's candidate values in [0, 1]. */
export const DEFAULT_GRID_STEP = 0.02;

/** The method a suggestion uses, as printed with it. */
export const SUGGESTION_METHOD =
  'Learn then Test (Angelopoulos et al., 2021): one random half of the cases orders the candidates from the most ' +
  'clearly safe to the least (binomial tail p-values), the other half tests them in that fixed sequence with exact ' +
  'binomial tail (Clopper–Pearson) p-values, stopping at the first failure; the family-wise error is at most ' +
  '1 − confidence.';
/** The assumption the guarantee rests on. */
export const SUGGESTION_ASSUMPTION =
  'The labelled cases are exchangeable with the live traffic (drawn the same way), and the model, Questions and ' +
  'Decision stay the ones calibrated (the lock and the drift guard check this).';

/** One candidate's figures. */
export interface CandidateFigures {
  readonly thresholds: Thresholds;
  /** Share of all cases sent to Review. */
  readonly reviewRate: number;
  /** Error rate of the automatic Outcomes over all cases (null when none was automatic). */
  readonly observedError: number | null;
  /** Upper bound of the error rate at the confidence (Clopper–Pearson, test half). */
  readonly errorBound: number;
  /** Whether the procedure certified error ≤ maxError for it. */
  readonly certified: boolean;
  /** Where it stands in the fixed sequence (why it is certified or not). */
  readonly status: CandidateStatus;
  /** The test half's p-value, when it was tested. */
  readonly pValue: number | null;
  /** Automatic Outcomes on the test half, and how many were wrong. */
  readonly testAutomatic: number;
  readonly testWrong: number;
}

/** The suggestion for one Decision under one identity. */
export interface ThresholdSuggestion {
  readonly identity: CalibrationIdentity;
  readonly target: { readonly maxError: number; readonly confidence: number; readonly maxReviewRate: number | null };
  /** The review capacity it was held to (`maxReviewsPerDay`), or null when none was given. */
  readonly capacity: CapacityCheck | null;
  readonly method: string;
  readonly assumption: string;
  /** Assessed cases used, and how they were split. */
  readonly cases: number;
  readonly learnCases: number;
  readonly testCases: number;
  readonly candidates: number;
  /** The least width kept between the thresholds of each Review band. */
  readonly minBand: number;
  /** The Review bands kept open (declared, or found from the current thresholds). */
  readonly bands: readonly ReviewBand[];
  /** How fixed-sequence testing went: candidates ordered by the learn half, certified, and the one that stopped it. */
  readonly sequence: {
    readonly ordered: number;
    readonly certified: number;
    readonly stoppedBy: CandidateFigures | null;
  };
  /** The thresholds the Decision declares now, measured the same way. */
  readonly current: CandidateFigures;
  /** The certified candidate with the lowest review rate, or null when none meets the target. */
  readonly chosen: CandidateFigures | null;
  /** Review rate against error bound: the candidates no other beats on both. */
  readonly frontier: readonly CandidateFigures[];
  /**
   * When nothing meets the target: about how many labelled cases, more than now, would give a candidate a 90 % chance
   * to be certified — or, when too few cases were decided automatically to estimate it, the least count with which
   * any could be (the verdict says which). Null when every candidate's observed error reaches the target: no count
   * would do.
   */
  readonly casesNeeded: number | null;
  /** The version to give the Decision with the chosen thresholds (null when nothing is chosen). */
  readonly nextVersion: string | null;
  /** What to do, in one or two sentences. */
  readonly verdict: string;
}

/** An assessed case and the Outcome a reviewer would settle on. */
export interface SuggestionCase {
  readonly assessment: Assessment<any>;
  readonly expected: Outcome;
}

/** Checks a suggestion's target before any Engine is asked. */
export function checkSuggestOptions(options: SuggestOptions): void {
  if (options === null || typeof options !== 'object') {
    throw new InvalidSuggestion(
      'suggest() takes { maxError, confidence, maxReviewRate? }, e.g. { maxError: 0.05, confidence: 0.95 }.',
    );
  }
  const open = (value: unknown, name: string, example: string) => {
    if (typeof value !== 'number' || !(value > 0 && value < 1)) {
      throw new InvalidSuggestion(
        `${name} must be a number strictly between 0 and 1 (e.g. ${example}); got ${JSON.stringify(value)}.`,
      );
    }
  };
  open(options.maxError, 'maxError (--max-error)', '0.05');
  open(options.confidence, 'confidence (--confidence)', '0.95');
  if (options.maxReviewRate !== undefined) {
    const value = options.maxReviewRate;
    if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
      throw new InvalidSuggestion(
        `maxReviewRate (--max-review) must be a number in (0, 1] (e.g. 0.4); got ${JSON.stringify(value)}.`,
      );
    }
  }
  if (options.maxReviewsPerDay !== undefined) {
    const value = options.maxReviewsPerDay;
    if (typeof value !== 'number' || !Number.isFinite(value) || !(value > 0)) {
      throw new InvalidSuggestion(
        `maxReviewsPerDay (--max-reviews-per-day) must be a number of cases above 0 (e.g. 40); got ` +
          `${JSON.stringify(value)}.`,
      );
    }
  }
  if (options.learnFraction !== undefined) open(options.learnFraction, 'learnFraction', '0.5');
  if (options.objective !== undefined && options.objective !== 'cost' && options.objective !== 'review') {
    throw new InvalidSuggestion(
      `objective (--objective) must be 'cost' or 'review'; got ${JSON.stringify(options.objective)}.`,
    );
  }
  if (options.minBand !== undefined) open(options.minBand, 'minBand (--min-band)', String(DEFAULT_MIN_BAND));
}

/** The candidate threshold values of a Decision, checked against what it declares. */
export function candidateGrid(
  name: string,
  declared: Thresholds,
  grid: SuggestOptions['grid'] = {},
  step: number = DEFAULT_GRID_STEP,
): Thresholds[] {
  for (const key of Object.keys(grid)) {
    if (!(key in declared)) {
      throw new InvalidSuggestion(
        `The grid names "${key}", but ${name} declares no such threshold (it declares ${Object.keys(declared).join(', ')}).`,
      );
    }
    const values = grid[key];
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      values.some((v) => typeof v !== 'number' || !Number.isFinite(v))
    ) {
      throw new InvalidSuggestion(`The grid of ${name}.thresholds.${key} must be a non-empty list of finite numbers.`);
    }
  }
  const axes = Object.keys(declared).map((key): [string, readonly number[]] => {
    if (grid[key]) return [key, grid[key]];
    const value = declared[key];
    if (value < 0 || value > 1) return [key, [value]];
    const steps = Math.round(1 / step);
    return [key, Array.from({ length: steps + 1 }, (_, i) => Math.round(i * step * 1e6) / 1e6)];
  });
  const total = axes.reduce((product, [, values]) => product * values.length, 1);
  if (total > MAX_CANDIDATES) {
    throw new InvalidSuggestion(
      `The grid of ${name} has ${total} candidates; give coarser values (at most ${MAX_CANDIDATES}).`,
    );
  }
  let candidates: Record<string, number>[] = [{}];
  for (const [key, values] of axes) {
    candidates = candidates.flatMap((partial) => values.map((value) => ({ ...partial, [key]: value })));
  }
  return candidates;
}

/**
 * Searches a Decision's thresholds over the answered cases of one identity (no Engine call): re-applies the pure
 * Decision with each candidate, then runs Learn then Test. Throws InvalidSuggestion when the Decision declares no
 * thresholds or throws for a candidate.
 */
export function suggestThresholds(
  decision: Decision,
  metadata: DecisionMetadata,
  identity: CalibrationIdentity,
  cases: readonly SuggestionCase[],
  options: SuggestOptions,
): ThresholdSuggestion {
  checkSuggestOptions(options);
  const declared = decisionThresholds(decision);
  if (declared === null) {
    throw new InvalidSuggestion(
      `${metadata.name} declares no thresholds, so there is nothing to suggest: declare them as data read by ` +
        'decide(), e.g. `readonly thresholds = { reject: 0.8, approve: 0.3 }`.',
    );
  }
  if (cases.length === 0) {
    throw new InvalidSuggestion(
      `No assessed case of ${metadata.name} (model ${identity.model}) to suggest thresholds from.`,
    );
  }
  const learnFraction = options.learnFraction ?? 0.5;
  const learn = learnMask(cases.length, learnFraction, options.seed ?? 1);
  const current = tallyCandidate(decision, metadata, cases, learn);
  const minBand = options.minBand ?? DEFAULT_MIN_BAND;
  const bands = options.reviewBands
    ? declaredBands(metadata.name, declared, options.reviewBands)
    : foundBands(decision, metadata, declared, cases);
  // A closed or narrow band is never a candidate: not tested (so it spends nothing of the confidence), not proposed.
  const grid = candidateGrid(metadata.name, declared, options.grid).filter((values) =>
    bands.every(({ lower, upper }) => values[upper] - values[lower] >= minBand - 1e-9),
  );
  if (grid.length === 0) {
    throw new InvalidSuggestion(
      `No candidate of ${metadata.name} keeps its Review bands (${bands.map(describeBand).join(', ')}) at least ` +
        `${minBand} wide: give a grid with wider gaps, or a smaller minBand (--min-band).`,
    );
  }
  const tallies = grid.map((values) => tallyCandidate(withThresholds(decision, values), metadata, cases, learn));
  const target = {
    maxError: options.maxError,
    confidence: options.confidence,
    maxReviewRate: options.maxReviewRate ?? null,
  };
  const traffic = options.traffic ?? null;
  const capacityRate =
    options.maxReviewsPerDay === undefined || traffic === null
      ? null
      : Math.min(1, options.maxReviewsPerDay / traffic.perDay);
  // The capacity is one more bound on the review rate: the tightest bound is the one the choice is held to.
  const bound = {
    ...target,
    maxReviewRate: capacityRate === null ? target.maxReviewRate : Math.min(capacityRate, target.maxReviewRate ?? 1),
  };
  const result = learnThenTest([...tallies, current], bound);
  const figures = (candidate: TestedCandidate): CandidateFigures => ({
    thresholds: candidate.index === grid.length ? declared : grid[candidate.index],
    reviewRate: candidate.reviewRate,
    observedError: candidate.observedError,
    errorBound: candidate.errorBound,
    certified: candidate.certified,
    status: candidate.status,
    pValue: candidate.pValue,
    testAutomatic: candidate.testAutomatic,
    testWrong: candidate.testWrong,
  });
  const chosen = result.chosen ? figures(result.chosen) : null;
  const learnCases = learn.filter(Boolean).length;
  const estimate = chosen ? null : estimateCases(result, grid.length, cases.length, learnFraction, bound);
  const stoppedBy = result.stoppedBy ? figures(result.stoppedBy) : null;
  const sequence = { ordered: result.ordered, certified: result.certified, stoppedBy };
  const capacity =
    options.maxReviewsPerDay === undefined
      ? null
      : capacityCheck(options.maxReviewsPerDay, traffic, capacityRate, chosen);
  // Certified candidates held back only by a bound on the review rate: which bound binds, and by how much.
  const certifiedLeast = result.candidates
    .filter((c) => c.certified && c.index < grid.length)
    .sort((a, b) => a.reviewRate - b.reviewRate || a.index - b.index)[0];
  const binding =
    chosen || !certifiedLeast ? null : bindingLimit(figures(certifiedLeast), target.maxReviewRate, capacity);
  return Object.freeze({
    identity,
    target,
    capacity,
    method: SUGGESTION_METHOD,
    assumption: SUGGESTION_ASSUMPTION,
    cases: cases.length,
    learnCases,
    testCases: cases.length - learnCases,
    candidates: grid.length,
    minBand,
    bands,
    sequence,
    current: figures(result.candidates[grid.length]),
    chosen,
    frontier: result.frontier.filter((c) => c.index < grid.length).map(figures),
    casesNeeded: estimate?.needed ?? null,
    nextVersion: chosen ? bumpVersion(metadata.version) : null,
    verdict: verdict(metadata.name, { chosen, estimate, sequence, capacity, binding }, target, cases.length),
  });
}

/** What the capacity allows at the recorded traffic, and what the choice asks of it. */
export function capacityCheck(
  maxReviewsPerDay: number,
  traffic: RecordedTraffic | null,
  maxReviewRate: number | null,
  chosen: Pick<CandidateFigures, 'reviewRate'> | null,
): CapacityCheck {
  if (traffic === null || maxReviewRate === null) {
    return {
      maxReviewsPerDay,
      traffic: null,
      maxReviewRate: null,
      chosenReviewsPerDay: null,
      statement:
        `Capacity (${maxReviewsPerDay} reviews a day) cannot be checked without recorded traffic: no decision of ` +
        `this Judgment was recorded in the last ${TRAFFIC_WINDOW_DAYS} days, so the suggestion goes on without it.`,
    };
  }
  const chosenReviewsPerDay = chosen ? chosen.reviewRate * traffic.perDay : null;
  return {
    maxReviewsPerDay,
    traffic,
    maxReviewRate,
    chosenReviewsPerDay,
    statement:
      `Capacity: ${maxReviewsPerDay} reviews a day at the recorded traffic of ${round1(traffic.perDay)} decisions a ` +
      `day (${traffic.decisions} over ${describeDays(traffic.days)}, automatic and sent to Review) allows a review ` +
      `rate ≤ ${percent(maxReviewRate)}; candidates above it are not chosen` +
      (chosenReviewsPerDay === null ? '.' : `; the chosen one sends about ${round1(chosenReviewsPerDay)} a day.`),
  };
}

/** The bound on the review rate that keeps the least-reviewing certified candidate out, and by how much. */
interface BindingLimit {
  readonly limit: 'capacity' | 'maxReviewRate';
  readonly candidate: CandidateFigures;
  readonly text: string;
}

function bindingLimit(
  candidate: CandidateFigures,
  maxReviewRate: number | null,
  capacity: CapacityCheck | null,
): BindingLimit | null {
  const capacityRate = capacity?.maxReviewRate ?? null;
  const capacityBinds = capacityRate !== null && candidate.reviewRate > capacityRate;
  const rateBinds = maxReviewRate !== null && candidate.reviewRate > maxReviewRate;
  if (!capacityBinds && !rateBinds) return null;
  const thresholds = JSON.stringify(candidate.thresholds);
  if (capacityBinds && (!rateBinds || (capacityRate as number) <= (maxReviewRate as number))) {
    const traffic = (capacity as CapacityCheck).traffic as RecordedTraffic;
    const load = candidate.reviewRate * traffic.perDay;
    const max = (capacity as CapacityCheck).maxReviewsPerDay;
    return {
      limit: 'capacity',
      candidate,
      text:
        `The capacity binds: the certified candidate sending the fewest cases to Review, ${thresholds}, sends ` +
        `${percent(candidate.reviewRate)} of ${round1(traffic.perDay)} decisions a day, about ${round1(load)} reviews ` +
        `a day — ${round1(load - max)} above the capacity of ${max} (it would need about ` +
        `${Math.ceil(load)} a day, or the error target loosened knowingly).`,
    };
  }
  return {
    limit: 'maxReviewRate',
    candidate,
    text:
      `The review rate limit binds: the certified candidate sending the fewest cases to Review, ${thresholds}, ` +
      `sends ${percent(candidate.reviewRate)}, ${percent(candidate.reviewRate - (maxReviewRate as number))} above ` +
      `the limit of ${percent(maxReviewRate as number)}.`,
  };
}

function round1(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function describeDays(days: number): string {
  return Number(round1(days)) >= TRAFFIC_WINDOW_DAYS
    ? `the last ${TRAFFIC_WINDOW_DAYS} days`
    : `${round1(days)} days (since the first)`;
}

/** The case-count estimate of a suggestion that met no target. */
interface CaseEstimate {
  /** About how many labelled cases would do (or at least, when `floor`), more than now; null when no count would. */
  readonly needed: number | null;
  /** The error rate the estimate assumes (of the candidate it is for), or the lowest observed one when none. */
  readonly error: number | null;
  /** Too few cases were decided automatically to estimate: `needed` is the least count that could certify one. */
  readonly floor?: boolean;
}

/** Candidates, beside the frontier, whose case count is estimated: those with the lowest error rates taken. */
const ESTIMATED_CANDIDATES = 20;

/**
 * About how many labelled cases would give a candidate a 90 % chance to be certified, for the candidate needing the
 * fewest among the frontier and the ones with the lowest error rates (the one with the lowest observed error alone
 * may decide too few cases automatically). A candidate's error rate is taken as (wrong + ½) / (automatic + 1), not as
 * observed, so that a few automatic cases without an error do not promise certification at the next case.
 */
function estimateCases(
  result: { candidates: readonly TestedCandidate[]; frontier: readonly TestedCandidate[] },
  gridSize: number,
  cases: number,
  learnFraction: number,
  target: { maxError: number; confidence: number; maxReviewRate: number | null },
): CaseEstimate {
  const valid = (c: TestedCandidate) =>
    c.index < gridSize &&
    c.observedError !== null &&
    (target.maxReviewRate === null || c.reviewRate <= target.maxReviewRate);
  const rated = result.candidates.filter(valid).map((candidate) => {
    const automatic = Math.round((1 - candidate.reviewRate) * cases);
    const wrong = Math.round((candidate.observedError as number) * automatic);
    return { candidate, error: (wrong + 0.5) / (automatic + 1) };
  });
  if (rated.length === 0) return { needed: null, error: null };
  const onFrontier = new Set(result.frontier.map((c) => c.index));
  const lowest = [...rated].sort((a, b) => a.error - b.error || a.candidate.index - b.candidate.index);
  const estimated = [
    ...lowest.slice(0, ESTIMATED_CANDIDATES),
    ...lowest.slice(ESTIMATED_CANDIDATES).filter(({ candidate }) => onFrontier.has(candidate.index)),
  ];
  let best: CaseEstimate | null = null;
  for (const { candidate, error } of estimated) {
    if (error >= target.maxError) continue;
    const needed = casesNeeded(error, 1 - candidate.reviewRate, learnFraction, target, cases);
    if (needed !== null && (best?.needed == null || needed < best.needed)) best = { needed, error };
  }
  if (best) return best;
  // Too few automatic cases to estimate: the least count at which the candidate deciding the most cases automatically
  // could be certified at all, with no error in either half.
  const error = Math.min(...rated.map(({ candidate }) => candidate.observedError as number));
  const share = Math.max(
    ...rated
      .filter(({ candidate }) => (candidate.observedError as number) < target.maxError)
      .map(({ candidate }) => 1 - candidate.reviewRate),
    0,
  );
  if (share === 0) return { needed: null, error };
  const perHalf = Math.ceil(Math.log(1 - target.confidence) / Math.log(1 - target.maxError));
  const needed = Math.ceil(perHalf / share / Math.min(learnFraction, 1 - learnFraction));
  return { needed: Math.max(needed, cases + 1), error, floor: true };
}

/** The bands the caller declared, checked against the thresholds the Decision declares. */
export function declaredBands(name: string, declared: Thresholds, pairs: SuggestOptions['reviewBands']): ReviewBand[] {
  return (pairs ?? []).map((pair) => {
    if (!Array.isArray(pair) || pair.length !== 2 || pair[0] === pair[1]) {
      throw new InvalidSuggestion(
        `A Review band of ${name} is a pair of two threshold names [lower, upper], e.g. ['hold', 'block']; got ` +
          `${JSON.stringify(pair)}.`,
      );
    }
    for (const key of pair) {
      if (!(key in declared)) {
        throw new InvalidSuggestion(
          `The Review band ${JSON.stringify(pair)} names "${key}", but ${name} declares no such threshold (it ` +
            `declares ${Object.keys(declared).join(', ')}).`,
        );
      }
    }
    return { lower: pair[0], upper: pair[1], declared: true };
  });
}

/**
 * The Review bands the current thresholds hold: each pair of thresholds in [0, 1] that, closed either way (the upper
 * lowered to the lower, or the lower raised to the upper), only takes cases out of Review — none changes from one
 * automatic Outcome to another, none enters Review — and takes some out one way. No Engine call.
 */
export function foundBands(
  decision: Decision,
  metadata: DecisionMetadata,
  declared: Thresholds,
  cases: readonly SuggestionCase[],
): ReviewBand[] {
  const outcomes = (values: Thresholds) => {
    const candidate = withThresholds(decision, values);
    return cases.map(({ assessment }) => decideCase(candidate, metadata, assessment));
  };
  const now = outcomes(declared);
  /** How many cases closing the band took out of Review, or -1 when it changed anything else. */
  const leftReview = (closed: readonly Outcome[]) => {
    let left = 0;
    for (let i = 0; i < now.length; i += 1) {
      if (closed[i] === now[i]) continue;
      if (!metadata.review.has(now[i]) || metadata.review.has(closed[i])) return -1;
      left += 1;
    }
    return left;
  };
  const keys = Object.keys(declared).filter((key) => declared[key] >= 0 && declared[key] <= 1);
  const bands: ReviewBand[] = [];
  for (const lower of keys) {
    for (const upper of keys) {
      if (!(declared[lower] < declared[upper])) continue;
      const down = leftReview(outcomes({ ...declared, [upper]: declared[lower] }));
      const up = leftReview(outcomes({ ...declared, [lower]: declared[upper] }));
      if (down >= 0 && up >= 0 && down + up > 0) bands.push({ lower, upper, declared: false });
    }
  }
  return bands;
}

export function describeBand(band: ReviewBand): string {
  return `${band.lower}–${band.upper}`;
}

/** Which cases order the candidates (true) and which test them: a seeded shuffle, blind to the cases themselves. */
export function learnMask(cases: number, learnFraction: number, seed: number): boolean[] {
  const random = mulberry32(seed);
  const order = Array.from({ length: cases }, (_, i) => i);
  for (let i = cases - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const mask = new Array<boolean>(cases).fill(false);
  const learnCount = Math.floor(cases * learnFraction);
  for (let i = 0; i < learnCount; i += 1) mask[order[i]] = true;
  return mask;
}

/** The next version of a Decision: a trailing number counts up (`2` → `3`, `v1.4` → `v1.5`); none becomes `2`/`…-2`. */
export function bumpVersion(version: string | null): string {
  if (version === null) return '2';
  const match = /^(.*?)(\d+)$/.exec(version);
  return match ? `${match[1]}${Number(match[2]) + 1}` : `${version}-2`;
}

/** The Outcome of a candidate for one case; a Decision that throws for some threshold values is an InvalidSuggestion. */
export function decideCase(decision: Decision, metadata: DecisionMetadata, assessment: Assessment<any>): Outcome {
  try {
    return applyDecision(assessment, decision, false);
  } catch (error) {
    throw new InvalidSuggestion(
      `${metadata.name} threw with thresholds ${JSON.stringify(decisionThresholds(decision))} on a case: ` +
        `${(error as Error).message} A Decision must return an Outcome for every threshold value it may be given.`,
      { cause: error },
    );
  }
}

function tallyCandidate(
  decision: Decision,
  metadata: DecisionMetadata,
  cases: readonly SuggestionCase[],
  learn: readonly boolean[],
): CandidateTally {
  const learnCounts = { cases: 0, automatic: 0, wrong: 0 };
  const testCounts = { cases: 0, automatic: 0, wrong: 0 };
  for (let i = 0; i < cases.length; i += 1) {
    const { assessment, expected } = cases[i];
    const outcome = decideCase(decision, metadata, assessment);
    const counts = learn[i] ? learnCounts : testCounts;
    counts.cases += 1;
    if (!metadata.review.has(outcome)) {
      counts.automatic += 1;
      if (outcome !== expected) counts.wrong += 1;
    }
  }
  return {
    learn: learnCounts,
    test: testCounts,
    all: {
      cases: learnCounts.cases + testCounts.cases,
      automatic: learnCounts.automatic + testCounts.automatic,
      wrong: learnCounts.wrong + testCounts.wrong,
    },
  };
}

function verdict(
  name: string,
  found: {
    chosen: CandidateFigures | null;
    estimate: CaseEstimate | null;
    sequence: ThresholdSuggestion['sequence'];
    capacity: CapacityCheck | null;
    binding: BindingLimit | null;
  },
  target: { maxError: number; confidence: number; maxReviewRate: number | null },
  cases: number,
): string {
  const { chosen, estimate, sequence, capacity, binding } = found;
  const goal =
    `error of automatic Outcomes ≤ ${percent(target.maxError)} with ${percent(target.confidence)} confidence` +
    (target.maxReviewRate === null ? '' : ` and a review rate ≤ ${percent(target.maxReviewRate)}`) +
    (capacity?.maxReviewRate == null ? '' : ` and at most ${capacity.maxReviewsPerDay} reviews a day`);
  if (chosen) {
    return (
      `${name}: the thresholds ${JSON.stringify(chosen.thresholds)} meet the target (${goal}), sending ` +
      `${percent(chosen.reviewRate)} of cases to Review` +
      (capacity?.chosenReviewsPerDay == null ? '.' : ` (about ${round1(capacity.chosenReviewsPerDay)} a day).`)
    );
  }
  if (binding) {
    return (
      `${name}: no candidate meets the target (${goal}). The target was not weakened. The error target alone is ` +
      `met (${sequence.certified} candidates certified). ${binding.text}`
    );
  }
  const why = describeSequence(sequence, target);
  const cannot = (reason: string) =>
    `The target cannot be certified at this error rate whatever the count: ${reason}; change the Decision or the ` +
    'Questions, or accept a higher target knowingly.';
  const error = estimate?.error ?? null;
  const more =
    error === null
      ? cannot('no candidate within the review rate decides a case automatically')
      : estimate?.needed != null && estimate.floor
        ? `More cases would help, but too few of these were decided automatically to say how many: at least ` +
          `${estimate.needed} labelled cases (now ${cases}), the fewest with which a candidate erring less than the ` +
          'target so far could be certified, even without an error.'
        : estimate?.needed != null
          ? `More cases would help: about ${estimate.needed} labelled cases (now ${cases}) would give a candidate ` +
            `erring ${percent(error)} of the time a ${percent(ESTIMATE_POWER)} chance to be certified.`
          : cannot(`the lowest observed error of automatic Outcomes (${percent(error)}) reaches it`);
  const binds =
    capacity?.maxReviewRate == null || sequence.certified > 0
      ? ''
      : ' The error target binds: no candidate is certified at any review load, so the capacity is not what stops it.';
  return `${name}: no candidate meets the target (${goal}). The target was not weakened. ${why} ${more}${binds}`;
}

/** How fixed-sequence testing went, in one or two sentences: what was tested, and which candidate stopped it and why. */
export function describeSequence(
  sequence: ThresholdSuggestion['sequence'],
  target: { maxError: number; confidence: number },
): string {
  const stop = sequence.stoppedBy;
  if (sequence.ordered === 0) return 'No candidate passed the learn half, so none was tested.';
  if (stop === null) {
    return `The learn half ordered ${sequence.ordered} candidates and the test half certified every one of them.`;
  }
  return (
    `The learn half ordered ${sequence.ordered} candidates; the test half certified ${sequence.certified} and ` +
    `stopped at ${JSON.stringify(stop.thresholds)}: ${stop.testWrong} of its ${stop.testAutomatic} automatic ` +
    `Outcomes on the test half were wrong (p = ${(stop.pValue as number).toFixed(3)} > ` +
    `${(1 - target.confidence).toFixed(3)}; error bound ${percent(stop.errorBound)} above ` +
    `${percent(target.maxError)}), so no candidate after it was tested.`
  );
}

/** A share as a percentage with one decimal (`12.3 %`). */
export function percent(value: number): string {
  return `${Math.round(value * 1000) / 10} %`;
}
