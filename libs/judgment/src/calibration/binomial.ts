/** The part of jstat (which ships no types) the calibration uses. */
interface JStat {
  /** The regularized lower incomplete beta function I_x(a, b). */
  ibeta(x: number, a: number, b: number): number;
  /** The inverse of I_x(a, b) in x. */
  ibetainv(p: number, a: number, b: number): number;
}

// Required with its type spelled here: an ambient declaration file would not reach apps type-checking our sources.
const { jStat } = require('jstat') as { jStat: JStat };

// Exact binomial tails through the regularized incomplete beta function of jstat:
//   P(Bin(n, p) ≤ k) = 1 − I_p(k + 1, n − k)   for 0 ≤ k < n,
// and the Clopper–Pearson upper bound u of a share with k successes in n trials at confidence c is the p where
// P(Bin(n, p) ≤ k) = 1 − c, i.e. u = I⁻¹_c(k + 1, n − k).

/**
 * The p-value of "the error rate exceeds `target`" after seeing `errors` out of `trials`: P(Bin(trials, target) ≤
 * errors). Small when so few errors would be unlikely under an error rate of `target` (1 when there are no trials).
 */
export function binomialTailPValue(errors: number, trials: number, target: number): number {
  if (trials === 0 || errors >= trials) return 1;
  return Math.min(1, Math.max(0, 1 - jStat.ibeta(target, errors + 1, trials - errors)));
}

/** The one-sided Clopper–Pearson upper bound of an error rate at `confidence` (1 when there are no trials). */
export function clopperPearsonUpper(errors: number, trials: number, confidence: number): number {
  if (trials === 0 || errors >= trials) return 1;
  return Math.min(1, Math.max(0, jStat.ibetainv(confidence, errors + 1, trials - errors)));
}
