import { binomialTailPValue, clopperPearsonUpper } from './binomial';

/** How one candidate did on some cases: every case, the automatic ones, and the automatic ones that were wrong. */
export interface CandidateCounts {
  readonly cases: number;
  readonly automatic: number;
  readonly wrong: number;
}

/** A candidate's counts on the half that orders the candidates, the half that tests them, and all cases. */
export interface CandidateTally {
  readonly learn: CandidateCounts;
  readonly test: CandidateCounts;
  readonly all: CandidateCounts;
}

/** The target of a test. */
export interface LearnThenTestTarget {
  /** Largest acceptable error rate of automatic Outcomes, in (0, 1). */
  readonly maxError: number;
  /** Probability that the chosen candidate's error rate is at most maxError, in (0, 1). */
  readonly confidence: number;
  /** Largest acceptable review rate (measured on all cases, not guaranteed), or null. */
  readonly maxReviewRate: number | null;
}

/** One candidate as judged by the procedure. */
export interface TestedCandidate {
  readonly index: number;
  /** Share of all cases sent to Review. */
  readonly reviewRate: number;
  /** Error rate of the automatic Outcomes over all cases (null when none was automatic). */
  readonly observedError: number | null;
  /** Clopper–Pearson upper bound of the error rate at the confidence, from the test half. */
  readonly errorBound: number;
  /** The binomial tail p-value on the test half (null when the candidate was not tested). */
  readonly pValue: number | null;
  /** Whether fixed-sequence testing certified it (error ≤ maxError with the confidence). */
  readonly certified: boolean;
}

/** What the procedure found. */
export interface LearnThenTestResult {
  /** Every candidate, by index. */
  readonly candidates: readonly TestedCandidate[];
  /** The certified candidate with the lowest review rate within maxReviewRate, or null. */
  readonly chosen: TestedCandidate | null;
  /** Candidates no other beats on both review rate and error bound, by review rate. */
  readonly frontier: readonly TestedCandidate[];
  /** How many candidates fixed-sequence testing certified before its first failure. */
  readonly certified: number;
}

/**
 * Learn then Test (Angelopoulos, Bates, Candès, Jordan & Lei, 2021) with fixed-sequence testing. The learn half keeps
 * the candidates it would certify itself and orders them from the most clearly safe (smallest binomial tail p-value;
 * among equals the most conservative) to the least; the test half then tests them in that order with exact binomial
 * tail p-values, certifying each until the first p-value above 1 − confidence. As the order depends on the learn half only, the family-wise error rate is
 * at most 1 − confidence: with that probability every certified candidate has a true error rate of automatic
 * Outcomes at most maxError, provided the cases are exchangeable with the traffic the Decision will see.
 */
export function learnThenTest(tallies: readonly CandidateTally[], target: LearnThenTestTarget): LearnThenTestResult {
  const delta = 1 - target.confidence;
  const judged = tallies.map((tally, index) => ({
    index,
    tally,
    reviewRate: rate(tally.all.cases - tally.all.automatic, tally.all.cases) ?? 1,
    learnReviewRate: rate(tally.learn.cases - tally.learn.automatic, tally.learn.cases) ?? 1,
    learnPValue: binomialTailPValue(tally.learn.wrong, tally.learn.automatic, target.maxError),
  }));
  // Most clearly safe on the learn half first; among equals, the more conservative (more sent to Review) first.
  const order = judged
    .filter((c) => c.learnPValue <= delta)
    .sort((a, b) => a.learnPValue - b.learnPValue || b.learnReviewRate - a.learnReviewRate || a.index - b.index);

  const pValues = new Map<number, number>();
  let certified = 0;
  for (const candidate of order) {
    const p = binomialTailPValue(candidate.tally.test.wrong, candidate.tally.test.automatic, target.maxError);
    pValues.set(candidate.index, p);
    if (p > delta) break;
    certified += 1;
  }
  const certifiedSet = new Set(order.slice(0, certified).map((c) => c.index));

  const tested: TestedCandidate[] = judged.map((c) => ({
    index: c.index,
    reviewRate: c.reviewRate,
    observedError: rate(c.tally.all.wrong, c.tally.all.automatic),
    errorBound: clopperPearsonUpper(c.tally.test.wrong, c.tally.test.automatic, target.confidence),
    pValue: pValues.get(c.index) ?? null,
    certified: certifiedSet.has(c.index),
  }));
  const chosen =
    tested
      .filter((c) => c.certified && (target.maxReviewRate === null || c.reviewRate <= target.maxReviewRate))
      .sort((a, b) => a.reviewRate - b.reviewRate || a.errorBound - b.errorBound || a.index - b.index)[0] ?? null;
  return { candidates: tested, chosen, frontier: paretoFrontier(tested), certified };
}

/**
 * How many labelled cases would likely be needed for a candidate with this observed error and automatic share to be
 * certified: the smallest test half whose Clopper–Pearson bound at the observed error falls to maxError, scaled by the
 * automatic share and the test fraction. Null when the observed error already reaches the target (no amount helps).
 */
export function casesNeeded(
  observedError: number,
  automaticShare: number,
  testFraction: number,
  target: Pick<LearnThenTestTarget, 'maxError' | 'confidence'>,
): number | null {
  if (observedError >= target.maxError || automaticShare <= 0) return null;
  const bound = (trials: number) => clopperPearsonUpper(Math.round(observedError * trials), trials, target.confidence);
  let high = 1;
  while (bound(high) > target.maxError) {
    high *= 2;
    if (high > 1e8) return null;
  }
  let low = Math.floor(high / 2);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (bound(middle) > target.maxError) low = middle;
    else high = middle;
  }
  return Math.ceil(high / automaticShare / testFraction);
}

function rate(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

/** The candidates no other has both a lower-or-equal review rate and a lower error bound than, by review rate. */
function paretoFrontier(candidates: readonly TestedCandidate[]): TestedCandidate[] {
  const sorted = [...candidates].sort(
    (a, b) => a.reviewRate - b.reviewRate || a.errorBound - b.errorBound || a.index - b.index,
  );
  const frontier: TestedCandidate[] = [];
  let best = Infinity;
  for (const candidate of sorted) {
    if (candidate.errorBound < best) {
      frontier.push(candidate);
      best = candidate.errorBound;
    }
  }
  return frontier;
}
