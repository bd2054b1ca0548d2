import type { Assessment } from '../assessment/assessment';
import { applyDecision } from '../decision/apply-decision';
import type { Decision, DecisionMetadata } from '../decision/decision.decorator';
import { type Thresholds, decisionThresholds, withThresholds } from '../decision/thresholds';
import type { Outcome } from '../definition/outcome';
import { InvalidSuggestion } from '../errors';
import type { CalibrationIdentity, CalibrationReport } from './calibration.report';
import { type CandidateTally, type TestedCandidate, casesNeeded, learnThenTest } from './learn-then-test';

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
}

/** The suggestion for one Decision under one identity. */
export interface ThresholdSuggestion {
  readonly identity: CalibrationIdentity;
  readonly target: { readonly maxError: number; readonly confidence: number; readonly maxReviewRate: number | null };
  readonly method: string;
  readonly assumption: string;
  /** Assessed cases used, and how they were split. */
  readonly cases: number;
  readonly learnCases: number;
  readonly testCases: number;
  readonly candidates: number;
  /** The thresholds the Decision declares now, measured the same way. */
  readonly current: CandidateFigures;
  /** The certified candidate with the lowest review rate, or null when none meets the target. */
  readonly chosen: CandidateFigures | null;
  /** Review rate against error bound: the candidates no other beats on both. */
  readonly frontier: readonly CandidateFigures[];
  /** When nothing meets the target: about how many labelled cases would (null when more cases cannot help). */
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
  if (options.learnFraction !== undefined) open(options.learnFraction, 'learnFraction', '0.5');
}

/** The candidate threshold values of a Decision, checked against what it declares. */
export function candidateGrid(name: string, declared: Thresholds, grid: SuggestOptions['grid'] = {}): Thresholds[] {
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
    const steps = Math.round(1 / DEFAULT_GRID_STEP);
    return [key, Array.from({ length: steps + 1 }, (_, i) => Math.round(i * DEFAULT_GRID_STEP * 1e6) / 1e6)];
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
  const grid = candidateGrid(metadata.name, declared, options.grid);
  const learn = learnMask(cases.length, options.learnFraction ?? 0.5, options.seed ?? 1);
  const tallies = grid.map((values) => tallyCandidate(withThresholds(decision, values), metadata, cases, learn));
  const current = tallyCandidate(decision, metadata, cases, learn);
  const target = {
    maxError: options.maxError,
    confidence: options.confidence,
    maxReviewRate: options.maxReviewRate ?? null,
  };
  const result = learnThenTest([...tallies, current], target);
  const figures = (candidate: TestedCandidate): CandidateFigures => ({
    thresholds: candidate.index === grid.length ? declared : grid[candidate.index],
    reviewRate: candidate.reviewRate,
    observedError: candidate.observedError,
    errorBound: candidate.errorBound,
    certified: candidate.certified,
  });
  const chosen = result.chosen ? figures(result.chosen) : null;
  const learnCases = learn.filter(Boolean).length;
  const testFraction = (cases.length - learnCases) / cases.length;
  let needed: number | null = null;
  if (!chosen) {
    const best = result.candidates
      .filter(
        (c) => c.observedError !== null && (target.maxReviewRate === null || c.reviewRate <= target.maxReviewRate),
      )
      .sort((a, b) => (a.observedError as number) - (b.observedError as number) || a.reviewRate - b.reviewRate)[0];
    needed = best ? casesNeeded(best.observedError as number, 1 - best.reviewRate, testFraction, target) : null;
  }
  return Object.freeze({
    identity,
    target,
    method: SUGGESTION_METHOD,
    assumption: SUGGESTION_ASSUMPTION,
    cases: cases.length,
    learnCases,
    testCases: cases.length - learnCases,
    candidates: grid.length,
    current: figures(result.candidates[grid.length]),
    chosen,
    frontier: result.frontier.filter((c) => c.index < grid.length).map(figures),
    casesNeeded: needed,
    nextVersion: chosen ? bumpVersion(metadata.version) : null,
    verdict: verdict(metadata.name, chosen, needed, target, cases.length),
  });
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
    let outcome: Outcome;
    try {
      outcome = applyDecision(assessment, decision, false);
    } catch (error) {
      throw new InvalidSuggestion(
        `${metadata.name} threw with thresholds ${JSON.stringify(decisionThresholds(decision))} on a case: ` +
          `${(error as Error).message} A Decision must return an Outcome for every threshold value it may be given.`,
        { cause: error },
      );
    }
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
  chosen: CandidateFigures | null,
  needed: number | null,
  target: { maxError: number; confidence: number; maxReviewRate: number | null },
  cases: number,
): string {
  const goal =
    `error of automatic Outcomes ≤ ${percent(target.maxError)} with ${percent(target.confidence)} confidence` +
    (target.maxReviewRate === null ? '' : ` and a review rate ≤ ${percent(target.maxReviewRate)}`);
  if (chosen) {
    return `${name}: the thresholds ${JSON.stringify(chosen.thresholds)} meet the target (${goal}), sending ${percent(chosen.reviewRate)} of cases to Review.`;
  }
  const more =
    needed === null
      ? 'More cases alone will not help: the observed error of every candidate reaches the target; change the Decision or the Questions, or accept a higher target knowingly.'
      : `About ${needed} labelled cases (now ${cases}) would likely be enough, if the error stays as observed.`;
  return `${name}: no candidate meets the target (${goal}). The target was not weakened. ${more}`;
}

function percent(value: number): string {
  return `${Math.round(value * 1000) / 10} %`;
}

/** A small seeded PRNG (mulberry32): the split must be reproducible and independent of the cases. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A calibration run and the thresholds it suggests: one suggestion per Decision and identity. */
export class CalibrationSuggestion {
  readonly suggestions: readonly ThresholdSuggestion[];

  constructor(
    readonly report: CalibrationReport,
    suggestions: readonly ThresholdSuggestion[],
  ) {
    this.suggestions = Object.freeze([...suggestions]);
    Object.freeze(this);
  }

  /** Whether every suggestion found thresholds that meet the target. */
  get met(): boolean {
    return this.suggestions.length > 0 && this.suggestions.every((suggestion) => suggestion.chosen !== null);
  }

  toJSON(): { report: ReturnType<CalibrationReport['toJSON']>; suggestions: readonly ThresholdSuggestion[] } {
    return { report: this.report.toJSON(), suggestions: this.suggestions };
  }
}
