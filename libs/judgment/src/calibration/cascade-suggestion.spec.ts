import {
  type CascadeTierCandidate,
  type CascadeTierInput,
  MAX_JOINT_CANDIDATES,
  VERDICT,
  bandCandidates,
  suggestCascade,
} from './cascade-suggestion';
import { mulberry32 } from '../fingerprint/seeded-random';

const { band: B, right: R, wrong: W } = VERDICT;

/** A standard normal draw (Box–Muller) from a seeded uniform source. */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/**
 * Synthetic answers of two tiers about the same cases: truth ~ Bernoulli(0.3); each tier's probability is
 * sigmoid(s·(2·truth − 1) + N(0, 1)), with s = 1.5 for the cheap tier and 3.5 for the strong one (independent noise).
 */
function synthetic(n: number, seed: number) {
  const random = mulberry32(seed);
  const labels: boolean[] = [];
  const cheap: number[] = [];
  const strong: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const truth = random() < 0.3;
    const sign = truth ? 1 : -1;
    labels.push(truth);
    cheap.push(sigmoid(1.5 * sign + normal(random)));
    strong.push(sigmoid(3.5 * sign + normal(random)));
  }
  return { labels, cheap, strong };
}

const GRID = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

function tiers(n: number, seed: number, prices: [number | null, number | null] = [1, 20]): CascadeTierInput[] {
  const { labels, cheap, strong } = synthetic(n, seed);
  const costs = (price: number | null) => (price === null ? null : new Array<number>(n).fill(price));
  return [
    { name: 'cheap', candidates: bandCandidates(cheap, labels, { grid: GRID }), costs: costs(prices[0]) },
    { name: 'strong', candidates: bandCandidates(strong, labels, { grid: GRID }), costs: costs(prices[1]) },
  ];
}

describe('bandCandidates', () => {
  it('reads as a Decision asking above(upper) then above(lower): a tie with a threshold is on its upper side', () => {
    const candidates = bandCandidates([0.9, 0.5, 0.05, 0.3], [true, true, true, false], {
      grid: [0.3, 0.35, 0.9],
      minBand: 0.1,
    });
    expect(candidates.map((c) => c.thresholds)).toEqual([
      { lower: 0.3, upper: 0.9 },
      { lower: 0.35, upper: 0.9 },
    ]);
    // 0.9 at `upper` is positive; 0.3 at `lower` is in the band, below 0.35 it is negative.
    expect(Array.from(candidates[0].verdicts)).toEqual([R, B, W, B]);
    expect(Array.from(candidates[1].verdicts)).toEqual([R, B, W, R]);
  });

  it('names the thresholds as the Decision does when given its names', () => {
    const [first] = bandCandidates([0.2], [false], { grid: [0, 0.5], names: { lower: 'pay', upper: 'refuse' } });
    expect(first.thresholds).toEqual({ pay: 0, refuse: 0.5 });
  });

  it('refuses probabilities and labels of different lengths', () => {
    expect(() => bandCandidates([0.1, 0.2], [true])).toThrow('one label per probability');
  });
});

describe('suggestCascade', () => {
  it('measures a cascade tier by tier: shares decided, escalation rates, cost per decision, Review', () => {
    // Five cases; the cheap tier decides cases 0 and 1 (1 wrong), the strong tier decides 2 and 3, case 4 goes to Review.
    const cheapNow: CascadeTierCandidate = { thresholds: { t: 1 }, verdicts: [R, W, B, B, B] };
    const strongNow: CascadeTierCandidate = { thresholds: { t: 2 }, verdicts: [R, R, R, R, B] };
    const result = suggestCascade(
      [
        { name: 'cheap', candidates: [cheapNow], costs: [1, 1, 1, 1, 2] },
        { name: 'strong', candidates: [strongNow], costs: [20, 20, 20, 20, 40] },
      ],
      { maxError: 0.2, confidence: 0.9, current: [cheapNow, strongNow] },
    );
    const current = result.current!;
    expect(current.tiers.map((t) => [t.reached, t.decided, t.escalationRate, t.costPerDecision, t.wrong])).toEqual([
      [1, 0.4, 0.6, 6 / 5, 1],
      [0.6, 0.4, 1 / 3, 80 / 5, 0],
    ]);
    expect(current.reviewRate).toBe(0.2);
    expect(current.observedError).toBe(0.25);
    expect(current.costPerDecision).toBeCloseTo(86 / 5, 12);
    expect(result.jointCandidates).toBe(1);
    expect(result.cases).toBe(5);
  });

  it('certifies joint thresholds cheaper than the strong tier alone at the same target, within the bound', () => {
    const result = suggestCascade(tiers(3000, 7), { maxError: 0.05, confidence: 0.9 });
    expect(result.jointCandidates).toBe(55 * 55);
    expect(result.method).toContain('Learn then Test');
    expect(result.assumption).toContain('exchangeable');
    const chosen = result.chosen!;
    expect(chosen.certified).toBe(true);
    expect(chosen.errorBound).toBeLessThanOrEqual(0.05);
    expect(chosen.observedError!).toBeLessThanOrEqual(0.05);
    const [cheap, strong] = result.alone;
    expect(strong.chosen).not.toBeNull();
    // The cascade asks the strong tier only about what the cheap one leaves in its band.
    expect(chosen.costPerDecision!).toBeLessThan(strong.chosen!.costPerDecision!);
    expect(chosen.tiers[0].decided).toBeGreaterThan(0);
    expect(chosen.tiers[1].reached).toBeCloseTo(chosen.tiers[0].escalationRate!, 12);
    const spent = chosen.tiers.reduce((sum, tier) => sum + tier.costPerDecision!, 0);
    expect(spent).toBeCloseTo(chosen.costPerDecision!, 9);
    expect(chosen.tiers.reduce((sum, tier) => sum + tier.decided, 0) + chosen.reviewRate).toBeCloseTo(1, 12);
    // Every candidate keeps its band at least 0.1 wide (the grid has no narrower one).
    for (const tier of chosen.tiers)
      expect(tier.thresholds.upper - tier.thresholds.lower).toBeGreaterThanOrEqual(0.1 - 1e-9);
    expect(cheap.statement).toMatch(/no threshold certifies 5 % at 90 %|decides/);
    expect(result.verdict).toContain('meet the target');
  });

  it('keeps the review rate within the cap, and says so when nothing does', () => {
    const input = tiers(3000, 7);
    const capped = suggestCascade(input, { maxError: 0.05, confidence: 0.9, maxReviewRate: 0.1 });
    expect(capped.chosen!.reviewRate).toBeLessThanOrEqual(0.1);
    const impossible = suggestCascade(input, { maxError: 0.001, confidence: 0.99, maxReviewRate: 0.01 });
    expect(impossible.chosen).toBeNull();
    expect(impossible.verdict).toContain('The target was not weakened');
    expect(impossible.alone.every((tier) => tier.statement.startsWith('no threshold certifies 0.1 % at 99 %'))).toBe(
      true,
    );
  });

  it('gives the same answer for the same seed, and minimises reviews when asked to without prices', () => {
    const input = tiers(1500, 3);
    const a = suggestCascade(input, { maxError: 0.05, confidence: 0.9, seed: 4 });
    const b = suggestCascade(input, { maxError: 0.05, confidence: 0.9, seed: 4 });
    expect(a).toEqual(b);
    const unpriced = tiers(1500, 3, [null, null]);
    const review = suggestCascade(unpriced, { maxError: 0.05, confidence: 0.9, objective: 'review' });
    expect(review.chosen!.costPerDecision).toBeNull();
    const priced = suggestCascade(input, { maxError: 0.05, confidence: 0.9, objective: 'review' });
    expect(review.chosen!.reviewRate).toBeLessThanOrEqual(a.chosen!.reviewRate);
    expect(priced.chosen!.reviewRate).toBe(review.chosen!.reviewRate);
  });

  it('refuses, naming the tier, a tier without a price when the cost is minimised', () => {
    expect(() => suggestCascade(tiers(200, 1, [1, null]), { maxError: 0.05, confidence: 0.9 })).toThrow(
      'Tier 2 ("strong") declares no price, so the cost per decision cannot be minimised: declare engines.strong.price',
    );
  });

  it('refuses bad input: one tier, unequal cases, unknown costs and verdicts, a target outside (0, 1), a huge grid', () => {
    const [cheap, strong] = tiers(100, 1);
    expect(() => suggestCascade([cheap], { maxError: 0.05, confidence: 0.9 })).toThrow('at least two tiers');
    const short = { ...strong, candidates: [{ thresholds: {}, verdicts: [R] }] };
    expect(() => suggestCascade([cheap, short], { maxError: 0.05, confidence: 0.9 })).toThrow(
      'every tier must have answered the same cases',
    );
    const unknown = { ...strong, costs: [...new Array(99).fill(1), NaN] };
    expect(() => suggestCascade([cheap, unknown], { maxError: 0.05, confidence: 0.9 })).toThrow(
      'no known cost for the case at index 99',
    );
    const odd = { ...strong, candidates: [{ thresholds: {}, verdicts: new Array(100).fill(3) }] };
    expect(() => suggestCascade([cheap, odd], { maxError: 0.05, confidence: 0.9 })).toThrow('has a verdict 3');
    expect(() => suggestCascade([cheap, strong], { maxError: 1.5, confidence: 0.9 })).toThrow(
      'maxError (--max-error) must be a number strictly between 0 and 1',
    );
    const many = {
      ...strong,
      candidates: new Array(Math.ceil(MAX_JOINT_CANDIDATES / 55) + 1).fill(strong.candidates[0]),
    };
    expect(() => suggestCascade([cheap, many], { maxError: 0.05, confidence: 0.9 })).toThrow('give coarser grids');
  });
});
