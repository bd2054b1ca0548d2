import { binomialTailPValue, clopperPearsonUpper } from './binomial';
import { type CandidateTally, casesNeeded, learnThenTest } from './learn-then-test';
import { learnMask } from './threshold-suggestion';
import { mulberry32 as seeded } from '../fingerprint/seeded-random';

/** P(Bin(n, p) ≤ k) summed term by term, to check the incomplete-beta form against. */
function tailBySum(k: number, n: number, p: number): number {
  let sum = 0;
  let coefficient = 1;
  for (let i = 0; i <= k; i += 1) {
    if (i > 0) coefficient = (coefficient * (n - i + 1)) / i;
    sum += coefficient * p ** i * (1 - p) ** (n - i);
  }
  return sum;
}

describe('binomial tails', () => {
  it('gives the exact lower tail P(Bin(n, p) ≤ k)', () => {
    for (const [k, n, p] of [
      [0, 10, 0.05],
      [2, 100, 0.05],
      [7, 60, 0.1],
      [30, 1000, 0.05],
    ]) {
      expect(binomialTailPValue(k, n, p)).toBeCloseTo(tailBySum(k, n, p), 7);
    }
  });

  it('gives p-value 1 with no trials, or when every trial was an error', () => {
    expect(binomialTailPValue(0, 0, 0.05)).toBe(1);
    expect(binomialTailPValue(5, 5, 0.05)).toBe(1);
  });

  it('gives the Clopper–Pearson upper bound: the rate at which the observed tail equals 1 − confidence', () => {
    const upper = clopperPearsonUpper(3, 200, 0.95);
    expect(tailBySum(3, 200, upper)).toBeCloseTo(0.05, 6);
    // Zero errors in n trials: 1 − (1 − c)^(1/n), the "rule of three" for c = 0.95.
    expect(clopperPearsonUpper(0, 100, 0.95)).toBeCloseTo(1 - 0.05 ** (1 / 100), 9);
  });
});

describe('learnThenTest', () => {
  const counts = (cases: number, automatic: number, wrong: number) => ({ cases, automatic, wrong });
  const tally = (learn: [number, number, number], test: [number, number, number]): CandidateTally => ({
    learn: counts(...learn),
    test: counts(...test),
    all: counts(learn[0] + test[0], learn[1] + test[1], learn[2] + test[2]),
  });

  it('chooses the certified candidate with the lowest review rate', () => {
    const result = learnThenTest(
      [
        tally([500, 300, 0], [500, 300, 1]), // 40 % review, clearly safe
        tally([500, 450, 5], [500, 450, 6]), // 10 % review, safe
        tally([500, 500, 60], [500, 500, 55]), // no review, 11 % error
      ],
      { maxError: 0.05, confidence: 0.95, maxReviewRate: null },
    );
    expect(result.chosen?.index).toBe(1);
    expect(result.candidates[2].certified).toBe(false);
  });

  it('stops the fixed sequence at the first failure on the test half, certifying nothing after it', () => {
    const result = learnThenTest(
      [
        tally([500, 300, 0], [500, 300, 40]), // safe on the learn half, fails on the test half
        tally([500, 450, 12], [500, 450, 2]), // would pass, but comes later in the sequence
      ],
      { maxError: 0.05, confidence: 0.95, maxReviewRate: null },
    );
    expect(result.certified).toBe(0);
    expect(result.chosen).toBeNull();
  });

  it('honours maxReviewRate when choosing, and chooses nothing when no certified candidate meets it', () => {
    const tallies = [tally([500, 300, 0], [500, 300, 1])];
    const target = { maxError: 0.05, confidence: 0.95 };
    expect(learnThenTest(tallies, { ...target, maxReviewRate: 0.5 }).chosen?.index).toBe(0);
    expect(learnThenTest(tallies, { ...target, maxReviewRate: 0.3 }).chosen).toBeNull();
  });

  it('estimates the cases that give a 90 % chance of certification, above the current count', () => {
    const target = { maxError: 0.05, confidence: 0.95 };
    const needed = casesNeeded(0.01, 0.9, 0.5, target, 100) as number;
    expect(needed).toBeGreaterThan(100);
    // At that count each half holds about needed × 0.9 / 2 automatic Outcomes; at a 1 % error rate, the share of
    // draws whose errors stay within what passes the test at 5 % is about √0.9 per half.
    const trials = Math.round(needed * 0.5 * 0.9);
    let passing = 0;
    while (binomialTailPValue(passing + 1, trials, 0.05) <= 0.05) passing += 1;
    expect(binomialTailPValue(passing, trials, 0.01) ** 2).toBeGreaterThanOrEqual(0.89);
    // Never at or below the current count, however many cases there are already.
    expect(casesNeeded(0.01, 0.9, 0.5, target, 5_000)).toBeGreaterThan(5_000);
    expect(casesNeeded(0.06, 0.9, 0.5, target, 100)).toBeNull();
    expect(casesNeeded(0.05, 0.9, 0.5, target, 100)).toBeNull();
  });

  it('names the candidate that stopped the fixed sequence and where each candidate stands', () => {
    const result = learnThenTest(
      [
        tally([500, 300, 0], [500, 300, 0]), // certified first
        tally([500, 400, 2], [500, 400, 40]), // fails on the test half: stops the sequence
        tally([500, 450, 5], [500, 450, 1]), // ordered after the failure: never tested
        tally([500, 500, 60], [500, 500, 1]), // the learn half does not order it
      ],
      { maxError: 0.05, confidence: 0.95, maxReviewRate: null },
    );
    expect(result.candidates.map((c) => c.status)).toEqual(['certified', 'stopped', 'after-stop', 'not-ordered']);
    expect(result.stoppedBy?.index).toBe(1);
    expect(result.ordered).toBe(3);
    expect(result.certified).toBe(1);
  });

  it('keeps its guarantee: over synthetic datasets the chosen thresholds exceed the target in at most 1 − confidence of draws', () => {
    // A known distribution: the Engine answers p = u² or p = 1 − u² (u ~ U(0, 1), either with chance ½), and the
    // truth is drawn with probability p (a calibrated model). The Decision approves below a, rejects at or above r
    // and sends the rest to Review; the right Outcome is reject when the truth is true. The true error of automatic
    // Outcomes is computed by quadrature over u.
    const grid: Array<{ a: number; r: number }> = [];
    for (let a = 0; a <= 0.5; a += 0.05) for (let r = 0.5; r <= 1.0001; r += 0.05) grid.push({ a, r });
    const draw = (random: () => number) => {
      const u = random();
      return random() < 0.5 ? u * u : 1 - u * u;
    };
    const trueError = ({ a, r }: { a: number; r: number }) => {
      const steps = 20_000;
      let automatic = 0;
      let wrong = 0;
      for (let i = 0; i < steps; i += 1) {
        const u = (i + 0.5) / steps;
        for (const p of [u * u, 1 - u * u]) {
          if (p < a) {
            automatic += 1;
            wrong += p;
          } else if (p >= r) {
            automatic += 1;
            wrong += 1 - p;
          }
        }
      }
      return automatic === 0 ? 0 : wrong / automatic;
    };
    // Just under the true error of the most automatic candidates (4.6 %), so that choosing by the observed error
    // alone would often pick thresholds that truly exceed it.
    const target = { maxError: 0.045, confidence: 0.9, maxReviewRate: null };
    const draws = 200;
    const n = 4000;
    const errors = grid.map(trueError);
    const random = seeded(42);
    let exceeded = 0;
    let chosenCount = 0;
    let naiveExceeded = 0;
    for (let index = 0; index < draws; index += 1) {
      const cases = Array.from({ length: n }, () => {
        const p = draw(random);
        return { p, truth: random() < p };
      });
      const learn = learnMask(n, 0.5, index + 1);
      const tallies = grid.map(({ a, r }) => {
        const learnCounts = { cases: 0, automatic: 0, wrong: 0 };
        const testCounts = { cases: 0, automatic: 0, wrong: 0 };
        cases.forEach(({ p, truth }, index) => {
          const counts = learn[index] ? learnCounts : testCounts;
          counts.cases += 1;
          if (p >= a && p < r) return;
          counts.automatic += 1;
          if (p >= r !== truth) counts.wrong += 1;
        });
        return {
          learn: learnCounts,
          test: testCounts,
          all: {
            cases: n,
            automatic: learnCounts.automatic + testCounts.automatic,
            wrong: learnCounts.wrong + testCounts.wrong,
          },
        };
      });
      const { chosen } = learnThenTest(tallies, target);
      const naive = tallies
        .map((tally, candidate) => ({ tally, candidate }))
        .filter(({ tally }) => tally.all.automatic > 0 && tally.all.wrong / tally.all.automatic <= target.maxError)
        .sort((x, y) => y.tally.all.automatic - x.tally.all.automatic)[0];
      if (naive && errors[naive.candidate] > target.maxError) naiveExceeded += 1;
      if (chosen === null) continue;
      chosenCount += 1;
      if (errors[chosen.index] > target.maxError) exceeded += 1;
    }
    // Not vacuous: choosing by the observed error alone picks thresholds that truly exceed the target in many draws.
    expect(naiveExceeded / draws).toBeGreaterThan(0.3);
    // The procedure is useful (it usually finds thresholds) and safe: the share of draws whose chosen thresholds
    // truly exceed the target stays within 1 − confidence, plus three binomial standard errors of tolerance.
    expect(chosenCount).toBeGreaterThan(draws * 0.8);
    const allowed = 1 - target.confidence + 3 * Math.sqrt((0.1 * 0.9) / draws);
    expect(exceeded / draws).toBeLessThanOrEqual(allowed);
  });
});
