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

/**
 * Where a candidate stands in fixed-sequence testing: certified; the first that failed on the test half (it stopped
 * the sequence); ordered after that failure, so never tested; or not ordered at all, as the learn half would not
 * certify it.
 */
export type CandidateStatus = 'certified' | 'stopped' | 'after-stop' | 'not-ordered';

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
  readonly status: CandidateStatus;
  /** Automatic Outcomes on the test half, and how many of them were wrong. */
  readonly testAutomatic: number;
  readonly testWrong: number;
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
  /** How many candidates the learn half ordered for testing. */
  readonly ordered: number;
  /** The candidate whose failure on the test half stopped the sequence, or null when none failed. */
  readonly stoppedBy: TestedCandidate | null;
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
  const status = new Map<number, CandidateStatus>();
  order.forEach((c, position) =>
    status.set(c.index, position < certified ? 'certified' : position === certified ? 'stopped' : 'after-stop'),
  );

  const tested: TestedCandidate[] = judged.map((c) => ({
    index: c.index,
    reviewRate: c.reviewRate,
    observedError: rate(c.tally.all.wrong, c.tally.all.automatic),
    errorBound: clopperPearsonUpper(c.tally.test.wrong, c.tally.test.automatic, target.confidence),
    pValue: pValues.get(c.index) ?? null,
    certified: status.get(c.index) === 'certified',
    status: status.get(c.index) ?? 'not-ordered',
    testAutomatic: c.tally.test.automatic,
    testWrong: c.tally.test.wrong,
  }));
  const chosen =
    tested
      .filter((c) => c.certified && (target.maxReviewRate === null || c.reviewRate <= target.maxReviewRate))
      .sort((a, b) => a.reviewRate - b.reviewRate || a.errorBound - b.errorBound || a.index - b.index)[0] ?? null;
  const stoppedBy = certified < order.length ? tested[order[certified].index] : null;
  return { candidates: tested, chosen, frontier: paretoFrontier(tested), certified, ordered: order.length, stoppedBy };
}

/** The chance of certification a case-count estimate aims at. */
export const ESTIMATE_POWER = 0.9;

/**
 * About how many labelled cases, more than the `current` count, would give a candidate with this observed error and
 * automatic share a chance of at least ESTIMATE_POWER to be certified, were its true error the observed one: both
 * halves must pass (the learn half orders it, the test half certifies it), each with exact binomial probabilities.
 * Null when the observed error already reaches maxError: then no count certifies it.
 */
export function casesNeeded(
  observedError: number,
  automaticShare: number,
  learnFraction: number,
  target: Pick<LearnThenTestTarget, 'maxError' | 'confidence'>,
  current: number,
): number | null {
  if (observedError >= target.maxError || automaticShare <= 0) return null;
  const delta = 1 - target.confidence;
  /** The chance that `trials` automatic Outcomes at the observed error pass the test at maxError. */
  const passes = (trials: number) => {
    // The most errors that still pass: the p-value grows with the errors, so a binary search finds the last one.
    let low = -1;
    let high = trials;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (binomialTailPValue(middle, trials, target.maxError) <= delta) low = middle;
      else high = middle;
    }
    return low < 0 ? 0 : binomialTailPValue(low, trials, observedError);
  };
  const power = (cases: number) => {
    const learn = Math.floor(cases * learnFraction);
    return passes(Math.round(learn * automaticShare)) * passes(Math.round((cases - learn) * automaticShare));
  };
  let low = current;
  let high = current + 1;
  while (power(high) < ESTIMATE_POWER) {
    low = high;
    high *= 2;
    if (high > 1e8) return null;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (power(middle) >= ESTIMATE_POWER) high = middle;
    else low = middle;
  }
  return high;
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
