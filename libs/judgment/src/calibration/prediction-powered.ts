import { InvalidAuditPlan } from '../errors';

// Required with its type spelled here (jstat ships no types), as in binomial.ts.
const { jStat } = require('jstat') as { jStat: { normal: { inv(p: number, mean: number, sd: number): number } } };

/** The estimator, as printed with its figures. */
export const PPI_METHOD =
  'prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, 2023), mean estimator: the mean ' +
  'predicted error over every automatic Outcome of the window, corrected by the mean of (observed − predicted) over ' +
  'the audited ones; normal (CLT) interval from both variances.';
/** The assumption its validity rests on (the prediction may be poor: the interval is then only wider). */
export const PPI_ASSUMPTION =
  'The audits are a uniform random sample of the automatic Outcomes of the window (the audit rate draws them ' +
  'independently of their answers), and the prediction of each one is fixed before its audit is seen.';

/**
 * The rule for a normal interval from audits: at least 30 audits (the report's small-sample rule), of which at least
 * 5 wrong and 5 right (the usual np ≥ 5 rule). Below it the estimate is not given: a CLT interval there would look
 * precise and not be (with no error seen its width is 0).
 */
export const PPI_MIN_AUDITS = 30;
export const PPI_MIN_EACH = 5;

/** Why a prediction-powered estimate is not given for these audits, in words (null when it is). */
export function ppiTooFew(audits: number, errors: number): string | null {
  if (audits >= PPI_MIN_AUDITS && errors >= PPI_MIN_EACH && audits - errors >= PPI_MIN_EACH) return null;
  return (
    `too few for a normal interval (n = ${audits}, ${errors} wrong; it needs ${PPI_MIN_AUDITS} audits with at least ` +
    `${PPI_MIN_EACH} wrong and ${PPI_MIN_EACH} right)`
  );
}

/** An audited automatic Outcome: its predicted probability of being wrong, and whether the auditor found it wrong. */
export interface AuditedPrediction {
  readonly predicted: number;
  readonly wrong: boolean;
}

/** A prediction-powered estimate of an error rate, with its interval. */
export interface PredictionPoweredEstimate {
  readonly estimate: number;
  readonly interval: { readonly low: number; readonly high: number };
  readonly confidence: number;
  /** Audited Outcomes used (n), and automatic Outcomes whose predictions were used (N). */
  readonly audits: number;
  readonly automatic: number;
}

/**
 * The prediction-powered estimate of the error rate of automatic Outcomes: θ = mean(f over all N) − mean(f − y over
 * the n audited), with the interval θ ± z·√(var(f)/N + var(f − y)/n), clipped to [0, 1]. Null with fewer than two
 * audits or no prediction (no interval can be formed).
 */
export function predictionPoweredErrorRate(
  predictions: readonly number[],
  audited: readonly AuditedPrediction[],
  confidence = 0.95,
): PredictionPoweredEstimate | null {
  if (!(confidence > 0 && confidence < 1)) {
    throw new InvalidAuditPlan(`confidence must be a number strictly between 0 and 1; got ${confidence}.`);
  }
  const n = audited.length;
  const N = predictions.length;
  if (n < 2 || N < 2) return null;
  const [meanF, varF] = meanAndVariance(predictions);
  const [meanRectifier, varRectifier] = meanAndVariance(
    audited.map(({ predicted, wrong }) => predicted - (wrong ? 1 : 0)),
  );
  const estimate = meanF - meanRectifier;
  const z = jStat.normal.inv(1 - (1 - confidence) / 2, 0, 1);
  const half = z * Math.sqrt(varF / N + varRectifier / n);
  return {
    estimate: Math.min(1, Math.max(0, estimate)),
    interval: { low: Math.max(0, estimate - half), high: Math.min(1, estimate + half) },
    confidence,
    audits: n,
    automatic: N,
  };
}

/** The plain normal-approximation (Wald) interval of errors/n: what auditing alone gives, for comparison widths. */
export function plainErrorInterval(errors: number, n: number, confidence = 0.95): { low: number; high: number } {
  const p = errors / n;
  const z = jStat.normal.inv(1 - (1 - confidence) / 2, 0, 1);
  const half = z * Math.sqrt((p * (1 - p)) / n);
  return { low: Math.max(0, p - half), high: Math.min(1, p + half) };
}

/**
 * The predicted probability that an automatic Outcome is wrong, from its recorded answers: the largest doubt among
 * its probabilities, min(p, 1 − p) over every number in [0, 1] in the answers (a Likelihood, a Likelihood Set's
 * labels, a confidence). A proxy fixed before any audit: a poor one only widens the interval.
 */
export function predictedError(answers: unknown): number {
  let doubt = 0;
  const visit = (value: unknown, depth: number) => {
    if (typeof value === 'number' && value >= 0 && value <= 1) doubt = Math.max(doubt, Math.min(value, 1 - value));
    else if (value !== null && typeof value === 'object' && depth < 3) {
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(answers, 0);
  return doubt;
}

function meanAndVariance(values: readonly number[]): [number, number] {
  let mean = 0;
  for (const value of values) mean += value;
  mean /= values.length;
  let squares = 0;
  for (const value of values) squares += (value - mean) ** 2;
  return [mean, squares / (values.length - 1)];
}
