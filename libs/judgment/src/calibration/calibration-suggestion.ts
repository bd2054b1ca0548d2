import type { CalibrationReport } from './calibration.report';
import type { CascadeThresholdSuggestion } from './cascade-calibration';
import type { ThresholdSuggestion } from './threshold-suggestion';

/**
 * A calibration run and the thresholds it suggests: one suggestion per Decision and identity; on a Judgment with an
 * escalation cascade, the thresholds of every tier chosen together (`cascade`) instead.
 */
export class CalibrationSuggestion {
  readonly suggestions: readonly ThresholdSuggestion[];

  constructor(
    readonly report: CalibrationReport,
    suggestions: readonly ThresholdSuggestion[],
    /** The cascade's suggestion, or null without a cascade. */
    readonly cascade: CascadeThresholdSuggestion | null = null,
  ) {
    this.suggestions = Object.freeze([...suggestions]);
    Object.freeze(this);
  }

  /** Whether every suggestion found thresholds that meet the target (the cascade's, on a cascade). */
  get met(): boolean {
    if (this.cascade) return this.cascade.result.chosen !== null;
    return this.suggestions.length > 0 && this.suggestions.every((suggestion) => suggestion.chosen !== null);
  }

  toJSON(): {
    report: ReturnType<CalibrationReport['toJSON']>;
    suggestions: readonly ThresholdSuggestion[];
    cascade?: CascadeThresholdSuggestion;
  } {
    const json = { report: this.report.toJSON(), suggestions: this.suggestions };
    return this.cascade ? { ...json, cascade: this.cascade } : json;
  }
}
