import type { Readings, TracedComparison, TracedRead } from '../assessment/reading-trace';
import type { Outcome } from '../definition/outcome';
import { decisionThresholds } from './thresholds';

/** One comparison of a decision trace: what was compared, with what threshold (named when declared) and the margin. */
export interface TraceComparison extends TracedComparison {
  /** The name of the Decision's declared threshold whose value was compared (`reject`), or null. */
  readonly thresholdName: string | null;
  /** value − threshold, rounded to 6 decimals (positive: above it); null for a label test. */
  readonly margin: number | null;
}

/**
 * How a Decision reached its Outcome, as stored on the record (`decision_trace`): the answers it read, every
 * comparison it made through the answers' methods (`above`, `below`, `between`, `is`), and the rule that fired.
 *
 * The rule is the trailing run of comparisons that held (returned true) just before decide() returned: the
 * conditions of the `if` whose branch returned. When the last comparison did not hold, or none was made, the rule is
 * `otherwise`: the Decision returned after its tests failed (its default arm), and `rule.comparisons` is empty.
 * Reading a Classification's `label` counts as the test `key is <label>` (it holds), noted again when read again after
 * other comparisons. Comparisons a Decision makes on plain values (`answer.probability > 0.5`, a label kept in a
 * variable) are not seen; its reads still are, and an `otherwise` rule names the labels read before its failed test.
 */
export interface DecisionTrace {
  readonly version: 1;
  readonly decision: string;
  readonly outcome: string;
  readonly reads: readonly TracedRead[];
  readonly comparisons: readonly TraceComparison[];
  readonly rule: {
    /** Indexes into `comparisons` of the conditions that fired; empty for `otherwise`. */
    readonly comparisons: readonly number[];
    /** The rule in words, e.g. `abusive ≥ reject (0.65)` or `otherwise (no tested condition held)`. */
    readonly text: string;
  };
  /**
   * Set when the Outcome was in the Review band of a cascade tier with a tier after it: the case was asked of that
   * tier instead of going to Review (its record notes this one in `provenance_details.cascade.escalatedFrom`).
   */
  readonly escalated?: { readonly tier: number; readonly connection: string };
}

/** Builds the trace of one decide() run from what it read and compared. */
export function decisionTrace(decision: object, name: string, outcome: Outcome, readings: Readings): DecisionTrace {
  const declared = decisionThresholds(decision);
  // Plain literals, not spreads: this runs on every recorded decision (the trace's budget is a few µs).
  const comparisons = readings.comparisons.map((comparison): TraceComparison => {
    const { key, op, value, threshold, label, read, result } = comparison;
    const named: TraceComparison = {
      key,
      op,
      value,
      threshold,
      result,
      thresholdName: threshold === null ? null : thresholdName(declared, threshold),
      margin: threshold === null ? null : Math.round((value - threshold) * 1e6) / 1e6,
    };
    if (label === undefined) return named;
    return read
      ? { key, op, value, threshold, label, read, result, thresholdName: null, margin: null }
      : { key, op, value, threshold, label, result, thresholdName: null, margin: null };
  });
  const fired: number[] = [];
  for (let index = comparisons.length - 1; index >= 0 && comparisons[index].result; index--) fired.unshift(index);
  return {
    version: 1,
    decision: name,
    outcome: String(outcome),
    reads: readings.reads,
    comparisons,
    rule: {
      comparisons: fired,
      text:
        fired.length === 0
          ? otherwise(comparisons)
          : fired.map((index) => describeComparison(comparisons[index])).join(' and '),
    },
  };
}

/**
 * The rule of a Decision that returned after a test that failed. A label it read before that test may have decided
 * through a plain comparison (`const team = answer.label; … team === 'billing'`), which the trace cannot see: then
 * the rule says so instead of claiming that no condition held.
 */
function otherwise(comparisons: readonly TraceComparison[]): string {
  const labels = [...new Set(comparisons.filter((c) => c.read).map((c) => describeComparison(c)))];
  if (labels.length === 0) return 'otherwise (no tested condition held)';
  return (
    `otherwise (no traced test held after the last one; the Decision read ${labels.join(', ')} before it, and a ` +
    `test on ${labels.length === 1 ? 'that label' : 'those labels'} outside the answer's methods is not seen)`
  );
}

/** A comparison in words: `abusive ≥ reject (0.65)`, `credibility < 1.5`, `topic is billing`. */
export function describeComparison(comparison: TraceComparison): string {
  if (comparison.op === 'is') return `${comparison.key} is ${comparison.label}`;
  const sign = comparison.op === 'above' ? '≥' : '<';
  const threshold =
    comparison.thresholdName === null
      ? String(comparison.threshold)
      : `${comparison.thresholdName} (${comparison.threshold})`;
  return `${comparison.key} ${sign} ${threshold}`;
}

function thresholdName(declared: Readonly<Record<string, number>> | null, threshold: number): string | null {
  if (declared === null) return null;
  const names = Object.keys(declared).filter((name) => declared[name] === threshold);
  return names.length === 0 ? null : names.join('/');
}

/**
 * How close the Decision came to deciding otherwise: the smallest |value − threshold| of the threshold comparisons it
 * made (0.02: an answer 0.02 from a threshold), or null when it compared with none. Stored per record
 * (`decision_margin`) so the review desk can list the least confident cases first.
 */
export function decisionMargin(trace: DecisionTrace | null): number | null {
  let least: number | null = null;
  for (const comparison of trace?.comparisons ?? []) {
    if (comparison.margin === null || !Number.isFinite(comparison.margin)) continue;
    const margin = Math.abs(comparison.margin);
    if (least === null || margin < least) least = margin;
  }
  return least;
}
