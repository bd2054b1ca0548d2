/** The number of bands (and reliability bins): tenths of [0, 1]. */
export const BAND_COUNT = 10;

export { type Interval, wilsonInterval } from '../lock/wilson-interval';
import { type Interval, wilsonInterval } from '../lock/wilson-interval';

/** One bin of a reliability table: the cases whose predicted probability fell in [from, to). */
export interface ReliabilityBin {
  readonly from: number;
  readonly to: number;
  readonly count: number;
  /** Mean predicted probability of the bin's cases (null when empty). */
  readonly meanPredicted: number | null;
  /** Share of the bin's cases that were true (null when empty). */
  readonly observed: number | null;
  /** Wilson 95 % interval of `observed` (null when empty). */
  readonly interval: Interval | null;
}

/** A predicted probability and what turned out to be true. */
export interface Forecast {
  readonly probability: number;
  readonly truth: boolean;
}

/**
 * The band (or bin) of a value in [0, 1]: tenths, the last one also holding 1.0. The value is rounded to 9 decimals
 * first so that, e.g., a Confidence of .7 − .2 (0.49999999999999994 in floating point) falls in the 0.5 band.
 */
export function bandIndex(value: number): number {
  const scaled = Math.round(value * BAND_COUNT * 1e9) / 1e9;
  return Math.max(0, Math.min(BAND_COUNT - 1, Math.floor(scaled)));
}

/** The [from, to) bounds of a band. */
export function bandBounds(index: number): { from: number; to: number } {
  return { from: index / BAND_COUNT, to: (index + 1) / BAND_COUNT };
}

/** `part / whole`, or null when whole is 0. */
export function share(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

/** The Brier score: mean squared distance between the probability and the truth (0 is perfect); null when empty. */
export function brierScore(forecasts: readonly Forecast[]): number | null {
  if (forecasts.length === 0) return null;
  let sum = 0;
  for (const { probability, truth } of forecasts) sum += (probability - (truth ? 1 : 0)) ** 2;
  return sum / forecasts.length;
}

/** The reliability table: the forecasts in ten bins by predicted probability (every bin listed, empty ones too). */
export function reliabilityTable(forecasts: readonly Forecast[]): ReliabilityBin[] {
  const bins = Array.from({ length: BAND_COUNT }, () => ({ count: 0, predicted: 0, positives: 0 }));
  for (const { probability, truth } of forecasts) {
    const bin = bins[bandIndex(probability)];
    bin.count += 1;
    bin.predicted += probability;
    if (truth) bin.positives += 1;
  }
  return bins.map((bin, index) => ({
    ...bandBounds(index),
    count: bin.count,
    meanPredicted: share(bin.predicted, bin.count),
    observed: share(bin.positives, bin.count),
    interval: wilsonInterval(bin.positives, bin.count),
  }));
}

/**
 * The expected calibration error over ten bins: Σ (bin count / n) · |observed − mean predicted|, the average gap
 * between what was predicted and what happened (0 is perfectly calibrated); null when empty.
 */
export function expectedCalibrationError(forecasts: readonly Forecast[]): number | null {
  if (forecasts.length === 0) return null;
  let error = 0;
  for (const bin of reliabilityTable(forecasts)) {
    if (bin.count === 0) continue;
    error += (bin.count / forecasts.length) * Math.abs((bin.observed as number) - (bin.meanPredicted as number));
  }
  return error;
}
