import { InvalidSuggestion } from '../errors';
import { binomialTailPValue, clopperPearsonUpper } from './binomial';
import { DEFAULT_MIN_BAND, checkSuggestOptions, learnMask, percent } from './threshold-suggestion';

// Choosing every tier's thresholds of an escalation cascade together, from answers already asked: no Engine call.
//
// STABLE API (other code and benchmarks build on it; change it only compatibly):
//   suggestCascade(tiers: readonly CascadeTierInput[], target: CascadeTarget): CascadeSuggestionResult
//   bandCandidates(probabilities, labels, options?): CascadeTierCandidate[]   (a binary probability Decision's grid)
//   VERDICT, CASCADE_METHOD, CASCADE_ASSUMPTION, MAX_JOINT_CANDIDATES, DEFAULT_CASCADE_GRID_STEP
// Every tier has been asked every case once (the same cases, in the same order); for each tier, each candidate set of
// thresholds says per case whether that tier would decide it right, wrong, or in its Review band (escalate). Prices
// enter as each tier's cost per case (its price × the case's measured usage).

/** A tier's verdict on one case under one candidate: in its Review band (escalated onward), decided right, decided wrong. */
export const VERDICT = Object.freeze({ band: 0, right: 1, wrong: 2 } as const);

/** One candidate set of thresholds of one tier, and what that tier decides with it for each case. */
export interface CascadeTierCandidate {
  readonly thresholds: Readonly<Record<string, number>>;
  /** Per case, in the cases' order: VERDICT.band, VERDICT.right or VERDICT.wrong. */
  readonly verdicts: ArrayLike<number>;
}

/** One tier of the cascade, cheapest (asked first) first. */
export interface CascadeTierInput {
  /** The tier's connection, as printed. */
  readonly name: string;
  /** The thresholds the tier may decide with (its Review band kept open: see bandCandidates' minBand). */
  readonly candidates: readonly CascadeTierCandidate[];
  /**
   * What asking this tier cost for each case (its declared price × that case's measured usage or requests), or null
   * when the tier declares no price (then only the objective 'review' can be asked).
   */
  readonly costs: ArrayLike<number> | null;
}

/** What the cascade must guarantee, and what it minimises. */
export interface CascadeTarget {
  /** Largest acceptable error rate of the automatic Outcomes of the whole cascade, in (0, 1). */
  readonly maxError: number;
  /** Probability that the chosen thresholds' error rate is at most maxError, in (0, 1). */
  readonly confidence: number;
  /** Largest share of cases sent to Review after the last tier, in (0, 1] (measured, not guaranteed); null: none. */
  readonly maxReviewRate?: number | null;
  /**
   * 'cost' (default): the lowest expected cost per decision, then the fewest reviews; needs every tier's costs.
   * 'review': the fewest reviews, then the lowest cost (when known).
   */
  readonly objective?: 'cost' | 'review';
  /** Share of the cases that orders the candidates; the rest tests them (default 0.5). */
  readonly learnFraction?: number;
  /** Seed of the random split into the two halves (default 1). */
  readonly seed?: number;
  /** The tiers' thresholds the cascade declares now, measured beside the choice (not tested). */
  readonly current?: readonly CascadeTierCandidate[] | null;
}

/** One tier's part in a cascade point. */
export interface CascadeTierFigures {
  readonly name: string;
  readonly thresholds: Readonly<Record<string, number>>;
  /** Share of all cases asked of this tier. */
  readonly reached: number;
  /** Share of all cases this tier decided automatically. */
  readonly decided: number;
  /** Share of the cases reaching this tier that it passed on (to the next tier, or to Review after the last); null when none reached it. */
  readonly escalationRate: number | null;
  /** This tier's cost spread over every decision (its cost of the cases that reached it ÷ all cases); null without costs. */
  readonly costPerDecision: number | null;
  /** Automatic Outcomes of this tier that were wrong (all cases). */
  readonly wrong: number;
}

/** A cascade's thresholds (one set per tier, or one tier alone) and what they came to on the labelled cases. */
export interface CascadePoint {
  /** Per tier, in the cascade's order. */
  readonly tiers: readonly CascadeTierFigures[];
  /** Share of all cases sent to Review after the last tier. */
  readonly reviewRate: number;
  /** Error rate of the automatic Outcomes over all cases (null when none was automatic). */
  readonly observedError: number | null;
  /** Clopper–Pearson upper bound of that error rate at the confidence, from the test half. */
  readonly errorBound: number;
  /** Expected cost per decision (every tier asked, over all cases); null without costs. */
  readonly costPerDecision: number | null;
  /** Whether fixed-sequence testing certified error ≤ maxError for it. */
  readonly certified: boolean;
  /** The test half's p-value, when it was tested. */
  readonly pValue: number | null;
  /** Automatic Outcomes on the test half, and how many were wrong. */
  readonly testAutomatic: number;
  readonly testWrong: number;
}

/** One tier asked alone (its Review band straight to Review) at the same target. */
export interface AloneTier {
  readonly name: string;
  /** The tier's certified thresholds with the fewest reviews, or null when none certifies the target. */
  readonly chosen: CascadePoint | null;
  /** The tier's cost per decision when it is asked every case (whatever its thresholds); null without costs. */
  readonly costPerDecision: number | null;
  /** Candidates of the tier alone, ordered by the learn half, and certified. */
  readonly ordered: number;
  readonly certified: number;
  /** In a sentence: the figures, or that no threshold certifies the target. */
  readonly statement: string;
}

/** What the joint search found. */
export interface CascadeSuggestionResult {
  readonly method: string;
  readonly assumption: string;
  readonly target: {
    readonly maxError: number;
    readonly confidence: number;
    readonly maxReviewRate: number | null;
    readonly objective: 'cost' | 'review';
  };
  readonly cases: number;
  readonly learnCases: number;
  readonly testCases: number;
  /** Joint candidates measured (the product of the tiers' candidates). */
  readonly jointCandidates: number;
  /** The fixed sequence: candidates the learn half ordered, how many the test half certified, and where it stopped. */
  readonly sequence: { readonly ordered: number; readonly certified: number; readonly stoppedBy: CascadePoint | null };
  /** The certified joint thresholds minimising the objective within the review cap, or null. */
  readonly chosen: CascadePoint | null;
  /** The declared thresholds measured the same way (not tested), when given. */
  readonly current: CascadePoint | null;
  /** Each tier alone at the same target, in the cascade's order. */
  readonly alone: readonly AloneTier[];
  /** What was found, in one or two sentences. */
  readonly verdict: string;
}

/** Largest joint grid (the product of the tiers' candidates) a cascade suggestion searches. */
export const MAX_JOINT_CANDIDATES = 2_000_000;
/** Default step of a threshold's candidate values in [0, 1] in a cascade (coarser than one Engine's: the grid is joint). */
export const DEFAULT_CASCADE_GRID_STEP = 0.05;

/** The method, as printed with a cascade suggestion. */
export const CASCADE_METHOD =
  'Learn then Test over the joint candidates (Angelopoulos et al., 2021) with Pareto testing (Laufer-Goldshtein ' +
  'et al., 2023): every tier is asked every case once; one random half of the cases keeps the joint thresholds that ' +
  'improve the objective (cost per decision, then reviews) over every safer one — a chain from the most clearly safe ' +
  'to the cheapest, by binomial tail p-value — and the other half tests that chain in order with exact binomial tail ' +
  '(Clopper–Pearson) p-values, stopping at the first failure. The family-wise error is at most 1 − confidence: with ' +
  'at least that probability every certified choice has an error rate of automatic Outcomes, across all tiers, of at ' +
  'most the target.';
/** The assumption the guarantee rests on. */
export const CASCADE_ASSUMPTION =
  'The labelled cases and the live traffic are exchangeable (i.i.d. draws from the same distribution), and every ' +
  "tier's model, the Questions and the Decision stay the ones calibrated (the lock and the drift guard check each tier).";

/**
 * Chooses every tier's thresholds together: the certified joint candidate (error of the cascade's automatic Outcomes
 * ≤ maxError with probability ≥ confidence, by Learn then Test with fixed-sequence testing along the learn half's
 * Pareto chain) with the lowest cost per decision — or the fewest reviews — within maxReviewRate; and each tier alone
 * at the same target. A case escalates from a tier when the tier's candidate puts it in the Review band, and goes to
 * Review when the last tier does. Pure: no I/O, deterministic for a seed. Throws InvalidSuggestion on bad input.
 */
export function suggestCascade(tiers: readonly CascadeTierInput[], target: CascadeTarget): CascadeSuggestionResult {
  const objective = target.objective ?? 'cost';
  const maxReviewRate = target.maxReviewRate ?? null;
  checkSuggestOptions({
    maxError: target.maxError,
    confidence: target.confidence,
    ...(maxReviewRate === null ? {} : { maxReviewRate }),
    ...(target.learnFraction === undefined ? {} : { learnFraction: target.learnFraction }),
  });
  const n = checkTiers(tiers, objective, target.current ?? null);
  const learnFraction = target.learnFraction ?? 0.5;
  const learn = learnMask(n, learnFraction, target.seed ?? 1);
  const prepared = prepareTiers(tiers, n);
  const goal = { maxError: target.maxError, confidence: target.confidence, maxReviewRate, objective };

  const joint = evaluateJoint(prepared, n, learn);
  const tested = fixedSequence(joint, goal, objective);
  const figure = (index: number, status: { certified: boolean; pValue: number | null }) =>
    measurePoint(
      tiers,
      joint.choice(index).map((c, k) => tiers[k].candidates[c]),
      learn,
      goal,
      status,
    );
  const chosen =
    tested.chosen === null ? null : figure(tested.chosen, { certified: true, pValue: tested.pValue(tested.chosen) });
  const stoppedBy =
    tested.stoppedBy === null
      ? null
      : figure(tested.stoppedBy, { certified: false, pValue: tested.pValue(tested.stoppedBy) });
  const current = target.current
    ? measurePoint(tiers, target.current, learn, goal, { certified: false, pValue: null })
    : null;
  const alone = tiers.map((tier, k) => aloneTier(tier, prepared[k], n, learn, goal));
  const learnCases = learn.filter(Boolean).length;
  return Object.freeze({
    method: CASCADE_METHOD,
    assumption: CASCADE_ASSUMPTION,
    target: goal,
    cases: n,
    learnCases,
    testCases: n - learnCases,
    jointCandidates: joint.count,
    sequence: { ordered: tested.ordered, certified: tested.certified, stoppedBy },
    chosen,
    current,
    alone,
    verdict: cascadeVerdict(chosen, goal, tested),
  });
}

/**
 * The candidates of a binary probability Decision over a grid: with thresholds { lower, upper }, a case is decided
 * positive when its probability is at or above `upper`, negative when below `lower`, and is in the Review band in
 * between — as a Decision reading `p.above(upper)` then `p.above(lower)` decides (`above` is ≥). Pairs narrower than
 * minBand (default 0.1) are left out: a suggestion never closes a tier's band. Labels: true for a positive case.
 * `names` gives the Decision's own names of the two thresholds (default `lower` and `upper`).
 */
export function bandCandidates(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<boolean>,
  options: { grid?: readonly number[]; minBand?: number; names?: { lower: string; upper: string } } = {},
): CascadeTierCandidate[] {
  if (probabilities.length !== labels.length) {
    throw new InvalidSuggestion(
      `bandCandidates takes one label per probability; got ${probabilities.length} probabilities and ${labels.length} labels.`,
    );
  }
  const steps = Math.round(1 / DEFAULT_CASCADE_GRID_STEP);
  const grid =
    options.grid ?? Array.from({ length: steps + 1 }, (_, i) => Math.round(i * DEFAULT_CASCADE_GRID_STEP * 1e6) / 1e6);
  const minBand = options.minBand ?? DEFAULT_MIN_BAND;
  const names = options.names ?? { lower: 'lower', upper: 'upper' };
  const candidates: CascadeTierCandidate[] = [];
  for (const lower of grid) {
    for (const upper of grid) {
      if (upper - lower < minBand - 1e-9) continue;
      const verdicts = new Uint8Array(probabilities.length);
      for (let i = 0; i < probabilities.length; i += 1) {
        const p = probabilities[i];
        verdicts[i] =
          p >= upper
            ? labels[i]
              ? VERDICT.right
              : VERDICT.wrong
            : p >= lower
              ? VERDICT.band
              : labels[i]
                ? VERDICT.wrong
                : VERDICT.right;
      }
      candidates.push({ thresholds: { [names.lower]: lower, [names.upper]: upper }, verdicts });
    }
  }
  return candidates;
}

// --- checks -----------------------------------------------------------------------------------------------------

/** Checks the tiers and returns the number of cases. */
function checkTiers(
  tiers: readonly CascadeTierInput[],
  objective: 'cost' | 'review',
  current: readonly CascadeTierCandidate[] | null,
): number {
  if (objective !== 'cost' && objective !== 'review') {
    throw new InvalidSuggestion(
      `The objective of a cascade suggestion is 'cost' or 'review'; got ${JSON.stringify(objective)}.`,
    );
  }
  if (!Array.isArray(tiers) || tiers.length < 2) {
    throw new InvalidSuggestion('A cascade suggestion needs at least two tiers, cheapest first.');
  }
  const n = tiers[0].candidates?.[0]?.verdicts?.length ?? 0;
  if (n === 0) throw new InvalidSuggestion('A cascade suggestion needs at least one answered case.');
  let joint = 1;
  tiers.forEach((tier, k) => {
    const at = `Tier ${k + 1} ("${tier.name}")`;
    if (!Array.isArray(tier.candidates) || tier.candidates.length === 0) {
      throw new InvalidSuggestion(`${at} has no candidate thresholds to search.`);
    }
    for (const candidate of tier.candidates) checkVerdicts(at, candidate, n);
    joint *= tier.candidates.length;
    if (tier.costs === null || tier.costs === undefined) {
      if (objective === 'cost') {
        throw new InvalidSuggestion(
          `${at} declares no price, so the cost per decision cannot be minimised: declare engines.${tier.name}.price ` +
            '(e.g. { inputPerMillion: 0.15, outputPerMillion: 0.6 } or { perRequest: 0.001 }), or ask for the fewest ' +
            "reviews instead (objective 'review').",
        );
      }
    } else {
      if (tier.costs.length !== n) {
        throw new InvalidSuggestion(`${at} has ${tier.costs.length} costs for ${n} cases: give one cost per case.`);
      }
      for (let i = 0; i < n; i += 1) {
        const cost = tier.costs[i];
        if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0) {
          throw new InvalidSuggestion(
            `${at} has no known cost for the case at index ${i} (${String(cost)}): every case's cost must be a ` +
              'number of 0 or more; no cost is made up.',
          );
        }
      }
    }
  });
  if (joint > MAX_JOINT_CANDIDATES) {
    throw new InvalidSuggestion(
      `The joint grid of the cascade has ${joint} candidates (${tiers.map((t) => t.candidates.length).join(' × ')}); ` +
        `give coarser grids (at most ${MAX_JOINT_CANDIDATES} together).`,
    );
  }
  if (current !== null) {
    if (!Array.isArray(current) || current.length !== tiers.length) {
      throw new InvalidSuggestion(`The current thresholds must give one candidate per tier (${tiers.length}).`);
    }
    current.forEach((candidate, k) => checkVerdicts(`Tier ${k + 1} ("${tiers[k].name}"), current`, candidate, n));
  }
  return n;
}

function checkVerdicts(at: string, candidate: CascadeTierCandidate, n: number): void {
  const verdicts = candidate?.verdicts;
  if (!verdicts || verdicts.length !== n) {
    throw new InvalidSuggestion(
      `${at} has a candidate with ${verdicts?.length ?? 0} verdicts for ${n} cases: every tier must have answered the ` +
        'same cases, in the same order.',
    );
  }
  for (let i = 0; i < n; i += 1) {
    const v = verdicts[i];
    if (v !== VERDICT.band && v !== VERDICT.right && v !== VERDICT.wrong) {
      throw new InvalidSuggestion(`${at} has a verdict ${String(v)} at case ${i}: use VERDICT.band, .right or .wrong.`);
    }
  }
}

// --- bit sets over the cases ------------------------------------------------------------------------------------

/** A tier's candidates as bit sets over the cases (bit i of word i >> 5): in band, and decided wrong. */
interface PreparedTier {
  readonly band: Uint32Array[];
  readonly wrong: Uint32Array[];
  readonly costs: ArrayLike<number> | null;
}

function words(n: number): number {
  return (n + 31) >>> 5;
}

function prepareTiers(tiers: readonly CascadeTierInput[], n: number): PreparedTier[] {
  return tiers.map((tier) => ({
    band: tier.candidates.map((c) => bits(c.verdicts, n, VERDICT.band)),
    wrong: tier.candidates.map((c) => bits(c.verdicts, n, VERDICT.wrong)),
    costs: tier.costs,
  }));
}

function bits(verdicts: ArrayLike<number>, n: number, value: number): Uint32Array {
  const set = new Uint32Array(words(n));
  for (let i = 0; i < n; i += 1) if (verdicts[i] === value) set[i >>> 5] |= 1 << (i & 31);
  return set;
}

function maskOf(flags: readonly boolean[], want: boolean): Uint32Array {
  const set = new Uint32Array(words(flags.length));
  flags.forEach((flag, i) => {
    if (flag === want) set[i >>> 5] |= 1 << (i & 31);
  });
  return set;
}

/** Set bits of every 16-bit number: a table look-up stays fast whatever the engine makes of 32-bit arithmetic. */
const BITS16 = (() => {
  const table = new Uint8Array(65536);
  for (let i = 1; i < 65536; i += 1) table[i] = (i & 1) + table[i >>> 1];
  return table;
})();

function popcount(x: number): number {
  return BITS16[x & 0xffff] + BITS16[x >>> 16];
}

// --- the joint grid ---------------------------------------------------------------------------------------------

/** Every joint candidate's counts, by its index (mixed radix over the tiers' candidates, the first tier slowest). */
interface JointFigures {
  readonly count: number;
  readonly learnAutomatic: Int32Array;
  readonly learnWrong: Int32Array;
  readonly learnCases: number;
  readonly testAutomatic: Int32Array;
  readonly testWrong: Int32Array;
  /** Cases sent to Review after the last tier: learn half, all. */
  readonly learnReview: Int32Array;
  readonly allReview: Int32Array;
  /** Sum of the costs of every tier asked: learn half, all (0 without costs). */
  readonly learnCost: Float64Array;
  readonly allCost: Float64Array;
  readonly hasCost: boolean;
  readonly allAutomatic: Int32Array;
  readonly allWrong: Int32Array;
  /** The tiers' candidate indexes of a joint index. */
  choice(index: number): number[];
}

function evaluateJoint(tiers: readonly PreparedTier[], n: number, learn: readonly boolean[]): JointFigures {
  const sizes = tiers.map((t) => t.band.length);
  const count = sizes.reduce((a, b) => a * b, 1);
  const w = words(n);
  const learnSet = maskOf(learn, true);
  const figures = {
    learnAutomatic: new Int32Array(count),
    learnWrong: new Int32Array(count),
    testAutomatic: new Int32Array(count),
    testWrong: new Int32Array(count),
    learnReview: new Int32Array(count),
    allReview: new Int32Array(count),
    learnCost: new Float64Array(count),
    allCost: new Float64Array(count),
    allAutomatic: new Int32Array(count),
    allWrong: new Int32Array(count),
  };
  const hasCost = tiers.every((t) => t.costs !== null);
  const all = new Uint32Array(w).fill(0xffffffff);
  if (n % 32 !== 0) all[w - 1] = (1 << (n % 32)) - 1;
  const learnCount = learn.filter(Boolean).length;

  /** The cost of asking tier k about the cases in `reached`: learn half, all. */
  const costOf = (k: number, reached: Uint32Array): [number, number] => {
    const costs = tiers[k].costs;
    if (costs === null) return [0, 0];
    let learnSum = 0;
    let allSum = 0;
    for (let i = 0; i < n; i += 1) {
      if (((reached[i >>> 5] >>> (i & 31)) & 1) === 0) continue;
      allSum += costs[i];
      if (learn[i]) learnSum += costs[i];
    }
    return [learnSum, allSum];
  };

  const last = tiers.length - 1;
  const walk = (
    k: number,
    base: number,
    reached: Uint32Array,
    acc: { la: number; lw: number; aa: number; aw: number; lc: number; ac: number },
  ): void => {
    const [learnCost, allCost] = costOf(k, reached);
    const stride = sizes.slice(k + 1).reduce((a, b) => a * b, 1);
    for (let c = 0; c < sizes[k]; c += 1) {
      const band = tiers[k].band[c];
      const wrong = tiers[k].wrong[c];
      let la = 0;
      let lw = 0;
      let aa = 0;
      let aw = 0;
      let lr = 0;
      let ar = 0;
      const next = k === last ? null : new Uint32Array(w);
      for (let word = 0; word < w; word += 1) {
        const r = reached[word];
        if (r === 0) continue;
        const decided = r & ~band[word];
        const wrongHere = r & wrong[word];
        const l = learnSet[word];
        aa += popcount(decided);
        la += popcount(decided & l);
        aw += popcount(wrongHere);
        lw += popcount(wrongHere & l);
        const onward = r & band[word];
        if (next) next[word] = onward;
        else {
          ar += popcount(onward);
          lr += popcount(onward & l);
        }
      }
      const sum = {
        la: acc.la + la,
        lw: acc.lw + lw,
        aa: acc.aa + aa,
        aw: acc.aw + aw,
        lc: acc.lc + learnCost,
        ac: acc.ac + allCost,
      };
      const index = base + c * stride;
      if (next) {
        walk(k + 1, index, next, sum);
        continue;
      }
      figures.learnAutomatic[index] = sum.la;
      figures.learnWrong[index] = sum.lw;
      figures.testAutomatic[index] = sum.aa - sum.la;
      figures.testWrong[index] = sum.aw - sum.lw;
      figures.allAutomatic[index] = sum.aa;
      figures.allWrong[index] = sum.aw;
      figures.learnReview[index] = lr;
      figures.allReview[index] = ar;
      figures.learnCost[index] = sum.lc;
      figures.allCost[index] = sum.ac;
    }
  };
  walk(0, 0, all, { la: 0, lw: 0, aa: 0, aw: 0, lc: 0, ac: 0 });

  return {
    count,
    ...figures,
    learnCases: learnCount,
    hasCost,
    choice(index: number): number[] {
      const picked = new Array<number>(sizes.length);
      for (let k = sizes.length - 1; k >= 0; k -= 1) {
        picked[k] = index % sizes[k];
        index = Math.floor(index / sizes[k]);
      }
      return picked;
    },
  };
}

// --- Learn then Test along the learn half's Pareto chain -------------------------------------------------------

interface SequenceResult {
  readonly ordered: number;
  readonly certified: number;
  readonly chosen: number | null;
  readonly stoppedBy: number | null;
  pValue(index: number): number | null;
}

/**
 * Orders the joint candidates on the learn half and tests them on the test half. Kept for testing: candidates whose
 * learn-half p-value passes and whose learn-half review rate is within the cap; sorted from the most clearly safe
 * (smallest p-value; then the better objective) to the least, each kept only when it improves the objective —
 * (cost, reviews) or (reviews, cost), compared as tuples — over every candidate before it. The test half then
 * certifies them in that order until the first p-value above 1 − confidence. The chosen one is the certified one with
 * the best objective over all cases within the review cap.
 */
function fixedSequence(
  joint: JointFigures,
  goal: { maxError: number; confidence: number; maxReviewRate: number | null },
  objective: 'cost' | 'review',
): SequenceResult {
  const delta = 1 - goal.confidence;
  const pCache = new Map<number, number>();
  const pValue = (wrong: number, automatic: number) => {
    const key = wrong * 4_194_304 + automatic;
    let p = pCache.get(key);
    if (p === undefined) {
      p = binomialTailPValue(wrong, automatic, goal.maxError);
      pCache.set(key, p);
    }
    return p;
  };
  const learnCases = Math.max(joint.learnCases, 1);
  const cap = goal.maxReviewRate;
  const kept: { index: number; p: number; first: number; second: number }[] = [];
  for (let index = 0; index < joint.count; index += 1) {
    if (cap !== null && joint.learnReview[index] / learnCases > cap + 1e-12) continue;
    const wrong = joint.learnWrong[index];
    const automatic = joint.learnAutomatic[index];
    // At least the median of Bin(automatic, maxError) errors: the p-value is at least 1/2, above any delta below it.
    if (delta < 0.5 && wrong >= Math.ceil(automatic * goal.maxError)) continue;
    const p = pValue(wrong, automatic);
    if (p > delta) continue;
    const cost = joint.learnCost[index];
    const review = joint.learnReview[index];
    kept.push(
      objective === 'cost' ? { index, p, first: cost, second: review } : { index, p, first: review, second: cost },
    );
  }
  kept.sort((a, b) => a.p - b.p || a.first - b.first || a.second - b.second || a.index - b.index);
  const chain: typeof kept = [];
  for (const candidate of kept) {
    const best = chain[chain.length - 1];
    if (
      !best ||
      candidate.first < best.first - 1e-12 ||
      (Math.abs(candidate.first - best.first) <= 1e-12 && candidate.second < best.second)
    ) {
      chain.push(candidate);
    }
  }
  const tested = new Map<number, number>();
  let certified = 0;
  for (const candidate of chain) {
    const p = binomialTailPValue(joint.testWrong[candidate.index], joint.testAutomatic[candidate.index], goal.maxError);
    tested.set(candidate.index, p);
    if (p > delta) break;
    certified += 1;
  }
  // Every case is either decided automatically by some tier or sent to Review.
  const total = (index: number) => joint.allAutomatic[index] + joint.allReview[index];
  const score = (index: number): [number, number] =>
    objective === 'cost'
      ? [joint.allCost[index], joint.allReview[index]]
      : [joint.allReview[index], joint.allCost[index]];
  let chosen: number | null = null;
  for (const candidate of chain.slice(0, certified)) {
    const index = candidate.index;
    if (cap !== null && joint.allReview[index] / total(index) > cap + 1e-12) continue;
    if (chosen === null) {
      chosen = index;
      continue;
    }
    const [a1, a2] = score(index);
    const [b1, b2] = score(chosen);
    if (a1 < b1 - 1e-12 || (Math.abs(a1 - b1) <= 1e-12 && a2 < b2)) chosen = index;
  }
  return {
    ordered: chain.length,
    certified,
    chosen,
    stoppedBy: certified < chain.length ? chain[certified].index : null,
    pValue: (index) => tested.get(index) ?? null,
  };
}

// --- figures of one point ---------------------------------------------------------------------------------------

function measurePoint(
  tiers: readonly CascadeTierInput[],
  picked: readonly CascadeTierCandidate[],
  learn: readonly boolean[],
  goal: { confidence: number },
  status: { certified: boolean; pValue: number | null },
): CascadePoint {
  const n = learn.length;
  const hasCost = tiers.every((t) => t.costs !== null);
  const reached = new Array<number>(tiers.length).fill(0);
  const decided = new Array<number>(tiers.length).fill(0);
  const wrong = new Array<number>(tiers.length).fill(0);
  const cost = new Array<number>(tiers.length).fill(0);
  let review = 0;
  let automatic = 0;
  let wrongAll = 0;
  let testAutomatic = 0;
  let testWrong = 0;
  for (let i = 0; i < n; i += 1) {
    let k = 0;
    for (; k < tiers.length; k += 1) {
      reached[k] += 1;
      const costs = tiers[k].costs;
      if (costs !== null) cost[k] += costs[i];
      const verdict = picked[k].verdicts[i];
      if (verdict === VERDICT.band) continue;
      decided[k] += 1;
      automatic += 1;
      if (!learn[i]) testAutomatic += 1;
      if (verdict === VERDICT.wrong) {
        wrong[k] += 1;
        wrongAll += 1;
        if (!learn[i]) testWrong += 1;
      }
      break;
    }
    if (k === tiers.length) review += 1;
  }
  return {
    tiers: tiers.map((tier, k) => ({
      name: tier.name,
      thresholds: picked[k].thresholds,
      reached: reached[k] / n,
      decided: decided[k] / n,
      escalationRate: reached[k] === 0 ? null : (reached[k] - decided[k]) / reached[k],
      costPerDecision: hasCost ? tidy(cost[k] / n) : null,
      wrong: wrong[k],
    })),
    reviewRate: review / n,
    observedError: automatic === 0 ? null : wrongAll / automatic,
    errorBound: clopperPearsonUpper(testWrong, testAutomatic, goal.confidence),
    costPerDecision: hasCost ? tidy(cost.reduce((a, b) => a + b, 0) / n) : null,
    certified: status.certified,
    pValue: status.pValue,
    testAutomatic,
    testWrong,
  };
}

// --- one tier alone ---------------------------------------------------------------------------------------------

/**
 * One tier asked alone at the same target: its own Learn then Test (the same split and chain, its Review band going
 * to Review), choosing the certified thresholds with the fewest reviews — its cost per decision is the same whatever
 * its thresholds.
 */
function aloneTier(
  tier: CascadeTierInput,
  prepared: PreparedTier,
  n: number,
  learn: readonly boolean[],
  goal: { maxError: number; confidence: number; maxReviewRate: number | null },
): AloneTier {
  const joint = evaluateJoint([prepared], n, learn);
  const tested = fixedSequence(joint, goal, 'review');
  const chosen =
    tested.chosen === null
      ? null
      : measurePoint([tier], [tier.candidates[tested.chosen]], learn, goal, {
          certified: true,
          pValue: tested.pValue(tested.chosen),
        });
  const target = `${percent(goal.maxError)} at ${percent(goal.confidence)}`;
  const statement =
    chosen === null
      ? `no threshold certifies ${target}` +
        (goal.maxReviewRate === null ? '' : ` within a review rate of ${percent(goal.maxReviewRate)}`)
      : `${JSON.stringify(chosen.tiers[0].thresholds)}: decides ${percent(1 - chosen.reviewRate)}, sends ` +
        `${percent(chosen.reviewRate)} to Review` +
        (chosen.costPerDecision === null ? '' : `, costs ${formatCost(chosen.costPerDecision)} per decision`) +
        ` (error bound ${percent(chosen.errorBound)})`;
  let costPerDecision: number | null = null;
  if (tier.costs !== null) {
    costPerDecision = 0;
    for (let i = 0; i < n; i += 1) costPerDecision += tier.costs[i];
    costPerDecision = tidy(costPerDecision / n);
  }
  return { name: tier.name, chosen, costPerDecision, ordered: tested.ordered, certified: tested.certified, statement };
}

// --- words ------------------------------------------------------------------------------------------------------

function cascadeVerdict(
  chosen: CascadePoint | null,
  goal: { maxError: number; confidence: number; maxReviewRate: number | null; objective: 'cost' | 'review' },
  tested: SequenceResult,
): string {
  const target =
    `error of automatic Outcomes across the cascade ≤ ${percent(goal.maxError)} with ${percent(goal.confidence)} ` +
    'confidence' +
    (goal.maxReviewRate === null ? '' : ` and a review rate ≤ ${percent(goal.maxReviewRate)}`);
  if (chosen === null) {
    const why =
      tested.ordered === 0
        ? 'no joint candidate passed the learn half'
        : tested.certified === 0
          ? `the first of the ${tested.ordered} candidates the learn half ordered failed on the test half`
          : `the ${tested.certified} certified candidates all exceed the review rate`;
    return (
      `No joint thresholds meet the target (${target}): ${why}. The target was not weakened: label more cases, or ` +
      'loosen the target knowingly.'
    );
  }
  const by = goal.objective === 'cost' ? 'the lowest cost per decision' : 'the fewest reviews';
  const cost = chosen.costPerDecision === null ? '' : `, costing ${formatCost(chosen.costPerDecision)} per decision`;
  return (
    `The joint thresholds ${chosen.tiers.map((t) => `${t.name} ${JSON.stringify(t.thresholds)}`).join(', ')} meet ` +
    `the target (${target}) with ${by} among the certified: ${percent(chosen.reviewRate)} of cases sent to Review` +
    `${cost}.`
  );
}

/** A cost without the float noise of its sums (12 significant digits). */
function tidy(value: number): number {
  return Number(value.toPrecision(12));
}

/** A cost per decision with 4 significant digits. */
export function formatCost(value: number): string {
  return value === 0 ? '0' : String(Number(value.toPrecision(4)));
}
