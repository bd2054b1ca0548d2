import {
  bandBounds,
  bandIndex,
  brierScore,
  expectedCalibrationError,
  reliabilityTable,
  share,
  wilsonInterval,
} from './scoring';

describe('calibration scoring', () => {
  it('files a value in its tenth, rounding to 9 decimals first and keeping 1.0 in the last band', () => {
    expect([0, 0.1, 0.42, 0.45, 0.9, 0.95, 1].map(bandIndex)).toEqual([0, 1, 4, 4, 9, 9, 9]);
    expect(bandIndex(0.7 - 0.2)).toBe(5); // 0.49999999999999994 in floating point
    expect(bandIndex(0.1 + 0.2)).toBe(3);
  });

  it('gives each band its [from, to) bounds in tenths', () => {
    expect(bandBounds(0)).toEqual({ from: 0, to: 0.1 });
    expect(bandBounds(2)).toEqual({ from: 0.2, to: 0.3 });
    expect(bandBounds(9)).toEqual({ from: 0.9, to: 1 });
  });

  it('returns null for a share of nothing', () => {
    expect(share(1, 4)).toBe(0.25);
    expect(share(0, 0)).toBeNull();
  });

  it('computes the Wilson 95 % interval of a proportion', () => {
    // 8 of 10: centre (0.8 + z²/20) / (1 + z²/10) = 0.71675, half-width 0.22658.
    const eight = wilsonInterval(8, 10)!;
    expect(eight.low).toBeCloseTo(0.4902, 4);
    expect(eight.high).toBeCloseTo(0.9433, 4);
    // 0 of 10: from 0 to z² / (n + z²) = 3.8415 / 13.8415.
    const none = wilsonInterval(0, 10)!;
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.2775, 4);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it('computes the Brier score as the mean squared error against the truth', () => {
    // (0.9 − 1)² + (0.2 − 0)² + (0.6 − 0)² = 0.01 + 0.04 + 0.36 = 0.41, over 3.
    const forecasts = [
      { probability: 0.9, truth: true },
      { probability: 0.2, truth: false },
      { probability: 0.6, truth: false },
    ];
    expect(brierScore(forecasts)).toBeCloseTo(0.41 / 3, 12);
    expect(brierScore([])).toBeNull();
  });

  it('tabulates reliability in ten bins with count, mean predicted, observed frequency and its interval', () => {
    const table = reliabilityTable([
      { probability: 0.15, truth: true },
      { probability: 0.15, truth: false },
      { probability: 0.85, truth: true },
    ]);
    expect(table).toHaveLength(10);
    expect(table[1]).toEqual({
      from: 0.1,
      to: 0.2,
      count: 2,
      meanPredicted: 0.15,
      observed: 0.5,
      interval: wilsonInterval(1, 2),
    });
    expect(table[8]).toMatchObject({ count: 1, meanPredicted: 0.85, observed: 1 });
    expect(table[0]).toEqual({ from: 0, to: 0.1, count: 0, meanPredicted: null, observed: null, interval: null });
  });

  it('computes the expected calibration error as the case-weighted gap between predicted and observed', () => {
    // Bin 0.1: 2 cases, mean .15, observed .5 → gap .35; bin 0.8: mean .85, observed 1 → .15; bin 0.9: .95 vs 1 → .05.
    // ECE = 2/4 · .35 + 1/4 · .15 + 1/4 · .05 = .175 + .0375 + .0125 = .225.
    const ece = expectedCalibrationError([
      { probability: 0.15, truth: true },
      { probability: 0.15, truth: false },
      { probability: 0.85, truth: true },
      { probability: 0.95, truth: true },
    ]);
    expect(ece).toBeCloseTo(0.225, 12);
    expect(expectedCalibrationError([])).toBeNull();
  });
});
