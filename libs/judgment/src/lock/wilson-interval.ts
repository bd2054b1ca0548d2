/** z of a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

/** A 95 % interval of a proportion. */
export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** The Wilson score 95 % interval of `successes` out of `trials`; null when there are no trials. */
export function wilsonInterval(successes: number, trials: number): Interval | null {
  if (trials === 0) return null;
  const p = successes / trials;
  const z2 = Z95 * Z95;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
