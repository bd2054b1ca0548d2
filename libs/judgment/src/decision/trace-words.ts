import { type DecisionTrace, describeComparison } from './decision-trace';

/**
 * A number as people read it (`judgment explain`, the review desk): rounded to three decimals
 * (0.44999999999999996 → 0.45); the record and the JSON API keep it exact. Anything else as it is.
 */
export function shownNumber(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(Number(value.toFixed(3)) || 0) : String(value);
}

/** A margin with its sign (`+0.15`, `-0.2`, `0`), rounded as shownNumber. */
export function signedNumber(value: number): string {
  const shown = shownNumber(value);
  return Number(shown) > 0 ? `+${shown}` : shown;
}

/** One comparison of a trace in words, and whether it is part of the rule that fired. */
export interface TraceStep {
  /** `abusive ≥ reject (0.65): value 0.45 did not hold, margin -0.2` */
  readonly text: string;
  readonly held: boolean;
  readonly fired: boolean;
}

/** Each comparison of the trace in order, as `explain` prints it. */
export function traceSteps(trace: DecisionTrace): TraceStep[] {
  const fired = new Set(trace.rule.comparisons);
  return trace.comparisons.map((comparison, index) => {
    const margin = comparison.margin === null ? '' : `, margin ${signedNumber(comparison.margin)}`;
    const held = comparison.result ? 'held' : 'did not hold';
    return {
      text: `${describeComparison(comparison)}: value ${shownNumber(comparison.value)} ${held}${margin}`,
      held: comparison.result,
      fired: fired.has(index),
    };
  });
}

/** The trace in lines: the rule that fired, then each comparison numbered, the fired ones marked. */
export function traceLines(trace: DecisionTrace | null): string[] {
  if (trace === null) return ['Rule: no decision trace was recorded (decided before traces were kept).'];
  const lines = [`Rule that fired: ${trace.rule.text}`];
  if (trace.comparisons.length === 0) return [...lines, 'No threshold was compared through the answers.'];
  lines.push('Comparisons, in order:');
  traceSteps(trace).forEach((step, index) =>
    lines.push(`  ${index + 1}. ${step.text}${step.fired ? '  ← fired' : ''}`),
  );
  return lines;
}
