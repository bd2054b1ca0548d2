import { noteComparison } from './reading-trace';

/** The threshold rules shared by Likelihoods and Ratings: above is inclusive, below is strict, between is [a, b). */
export abstract class Thresholded {
  protected abstract thresholdValue(): number;

  /** True when the value is ≥ `threshold`. */
  above(threshold: number): boolean {
    const value = this.thresholdValue();
    const result = value >= threshold;
    noteComparison(this, 'above', value, threshold, result);
    return result;
  }

  /** True when the value is < `threshold`. */
  below(threshold: number): boolean {
    const value = this.thresholdValue();
    const result = value < threshold;
    noteComparison(this, 'below', value, threshold, result);
    return result;
  }

  /** True when `from` ≤ value < `to`. */
  between(from: number, to: number): boolean {
    return this.above(from) && this.below(to);
  }
}

/** The package's Confidence: the top probability minus the runner-up (0 runner-up when there is one value). */
export function confidenceOf(probabilities: readonly number[]): number {
  const sorted = [...probabilities].sort((a, b) => b - a);
  return (sorted[0] ?? 0) - (sorted[1] ?? 0);
}
