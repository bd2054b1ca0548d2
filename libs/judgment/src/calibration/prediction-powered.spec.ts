import { plainErrorInterval, predictedError, predictionPoweredErrorRate } from './prediction-powered';
import { mulberry32 } from '../fingerprint/seeded-random';

/** A seeded uniform generator: the simulation draws the same numbers on every run. */
const random = mulberry32;

/**
 * A realistic window of automatic Outcomes: 80 % confident ones (true error probability 0.02·u², mean 0.7 %) and
 * 20 % near the Review band (0.5·u^1.5, mean 20 %) — about 4.5 % wrong in all. `predict` is the model's prediction
 * of each one's error probability, from its true one.
 */
function windowOf(size: number, next: () => number, predict: (truth: number) => number) {
  const predicted: number[] = [];
  const wrong: boolean[] = [];
  for (let i = 0; i < size; i++) {
    const truth = next() < 0.8 ? 0.02 * next() ** 2 : 0.5 * next() ** 1.5;
    predicted.push(predict(truth));
    wrong.push(next() < truth);
  }
  return { predicted, wrong, rate: wrong.filter(Boolean).length / size };
}

/** `n` distinct indices of 0 … size − 1, uniformly. */
function sample(size: number, n: number, next: () => number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < n) chosen.add(Math.floor(next() * size));
  return [...chosen];
}

const WINDOW = 2000;
const DRAWS = 1000;
const calibrated = (truth: number) => truth;

/** Over DRAWS windows: how often the PPI interval from `audits` holds the window's error rate, and its mean width. */
function simulate(audits: number, predict: (truth: number) => number, seed: number) {
  const next = random(seed);
  let covered = 0;
  let width = 0;
  for (let draw = 0; draw < DRAWS; draw++) {
    const window = windowOf(WINDOW, next, predict);
    const audited = sample(WINDOW, audits, next).map((i) => ({
      predicted: window.predicted[i],
      wrong: window.wrong[i],
    }));
    const result = predictionPoweredErrorRate(window.predicted, audited, 0.95)!;
    if (result.interval.low <= window.rate && window.rate <= result.interval.high) covered += 1;
    width += result.interval.high - result.interval.low;
  }
  return { coverage: covered / DRAWS, width: width / DRAWS };
}

/** The mean width of the plain interval from `audits` alone (a uniform sample of the same kind of window). */
function plainWidth(audits: number, seed: number): number {
  const next = random(seed);
  let width = 0;
  for (let draw = 0; draw < DRAWS; draw++) {
    const errors = windowOf(audits, next, calibrated).wrong.filter(Boolean).length;
    const interval = plainErrorInterval(errors, audits, 0.95);
    width += interval.high - interval.low;
  }
  return width / DRAWS;
}

describe('predictionPoweredErrorRate (simulation, fixed seed)', () => {
  it('holds the window’s error rate at least 95 % of the time, within 2 points, over 1,000 windows', () => {
    const coverage = simulate(300, calibrated, 7).coverage;
    expect(coverage).toBeGreaterThanOrEqual(0.93);
    // Validity does not rest on the prediction: an over-confident one (half the true probability, plus noise) keeps
    // the coverage; it only widens the interval.
    const noise = random(99);
    const overConfident = simulate(300, (truth) => truth / 2 + 0.01 * noise(), 8).coverage;
    expect(overConfident).toBeGreaterThanOrEqual(0.93);
    process.stdout.write(
      `PPI coverage over ${DRAWS} windows: ${coverage} (calibrated), ${overConfident} (over-confident)\n`,
    );
  });

  it('needs at least 20 % fewer audits than plain auditing for the same interval width', () => {
    const ppi = simulate(300, calibrated, 11);
    // The least number of plain audits whose interval is as narrow on average (a search over n, same windows).
    let low = 300;
    let high = 600;
    expect(plainWidth(high, 12)).toBeLessThan(ppi.width);
    while (high - low > 5) {
      const middle = Math.floor((low + high) / 2);
      if (plainWidth(middle, 12) <= ppi.width) high = middle;
      else low = middle;
    }
    const saving = 1 - 300 / high;
    expect(saving).toBeGreaterThanOrEqual(0.2);
    expect({ plainAuditsAtEqualWidth: high, saving: Math.round(saving * 100) / 100 }).toEqual(FIGURE);
  });
});

/** The figure the README gives: 300 PPI audits match the width of this many plain ones. */
const FIGURE = { plainAuditsAtEqualWidth: 379, saving: 0.21 };

describe('predictionPoweredErrorRate', () => {
  it('is the plain error rate when the prediction is constant, with the audits’ spread', () => {
    const audited = [true, false, false, false].map((wrong) => ({ predicted: 0.1, wrong }));
    const result = predictionPoweredErrorRate([0.1, 0.1, 0.1, 0.1, 0.1], audited)!;
    expect(result.estimate).toBeCloseTo(0.25, 12);
    const half = 1.959963984540054 * Math.sqrt(0.25 / 4); // sample variance of (0.1 − y): 0.25
    expect(result.interval.high).toBeCloseTo(0.25 + half, 9);
    expect(result.interval.low).toBe(0);
    expect(result).toMatchObject({ audits: 4, automatic: 5, confidence: 0.95 });
  });

  it('says nothing from fewer than two audits', () => {
    expect(predictionPoweredErrorRate([0.1, 0.2], [{ predicted: 0.1, wrong: false }])).toBeNull();
  });
});

describe('predictedError', () => {
  it('takes the largest doubt among the probabilities of the answers', () => {
    expect(predictedError({ abusive: 0.9, flags: { spam: 0.2, threat: 0.01 } })).toBeCloseTo(0.2, 12);
    expect(predictedError({ abusive: 0.02 })).toBeCloseTo(0.02, 12);
    expect(predictedError(null)).toBe(0);
  });
});
