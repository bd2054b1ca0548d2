import type { Interval, ReliabilityBin } from './scoring';
import type { SignalFigures } from '../lock/signal-figures';

/** Results never mix: one result per Questions fingerprint × model × Decision × version × language. */
export interface CalibrationIdentity {
  /** The full fingerprint of the Questions asked. */
  readonly questions: string;
  /** The versioned model the Engine reported (a failed case files under the model another case reported). */
  readonly model: string;
  /** The Decision's registered name. */
  readonly decision: string;
  readonly decisionVersion: string | null;
  readonly language: string | null;
}

/** The assessed cases whose answer to one Question fell in one tenth: [from, to), the last band holding 1.0. */
export interface CalibrationBand {
  /** The Question key (`set.label` for a Likelihood Set label). */
  readonly question: string;
  readonly from: number;
  readonly to: number;
  readonly cases: number;
  /** How many cases expected each Outcome, by Outcome value (sorted). */
  readonly expected: Readonly<Record<string, number>>;
  readonly sentToReview: number;
  readonly automatic: number;
  /** Automatic Outcomes equal to the expected one. */
  readonly correct: number;
  /** sentToReview / cases (null when none). */
  readonly reviewRate: number | null;
  /** correct / automatic (null when none automatic): cases sent to Review are not counted. */
  readonly accuracy: number | null;
}

/** Proper scores of one Likelihood over the cases that carry its truth. */
export interface LikelihoodScore {
  /** The Likelihood key (`set.label` for a Likelihood Set label). */
  readonly question: string;
  /** Assessed cases with a truth for it. */
  readonly cases: number;
  /** Mean squared error of the probability against the truth (0 is perfect; 0.25 is a constant 0.5). */
  readonly brier: number | null;
  /** Expected calibration error over ten bins (0 is perfectly calibrated). */
  readonly expectedCalibrationError: number | null;
  /** Ten bins by predicted probability. */
  readonly reliability: readonly ReliabilityBin[];
}

/** One group's tally. */
export interface CalibrationResultFields {
  readonly identity: CalibrationIdentity;
  /** Assessed plus unassessed cases. */
  readonly cases: number;
  /** Cases the Engine failed to assess. */
  readonly unassessed: number;
  readonly sentToReview: number;
  readonly automatic: number;
  readonly correct: number;
  readonly reviewRate: number | null;
  readonly accuracy: number | null;
  /** Wilson 95 % interval of reviewRate. */
  readonly reviewRateInterval: Interval | null;
  /** Wilson 95 % interval of accuracy. */
  readonly accuracyInterval: Interval | null;
  /** By Question in declaration order, then ascending; only bands with cases. */
  readonly bands: readonly CalibrationBand[];
  /** Per Likelihood with truth in the cases. */
  readonly scores: readonly LikelihoodScore[];
  /** What to be careful about when reading the numbers (e.g. a small sample). */
  readonly warnings: readonly string[];
  /**
   * How much signal the answers carried: the lock stores it for the signal-collapse guard (not in the report's JSON,
   * which keeps the reference's shape); null without answers.
   */
  readonly signal: SignalFigures | null;
}

/** How one Decision did in one group of cases. */
export class CalibrationResult implements CalibrationResultFields {
  readonly identity!: CalibrationIdentity;
  readonly cases!: number;
  readonly unassessed!: number;
  readonly sentToReview!: number;
  readonly automatic!: number;
  readonly correct!: number;
  readonly reviewRate!: number | null;
  readonly accuracy!: number | null;
  readonly reviewRateInterval!: Interval | null;
  readonly accuracyInterval!: Interval | null;
  readonly bands!: readonly CalibrationBand[];
  readonly scores!: readonly LikelihoodScore[];
  readonly warnings!: readonly string[];
  readonly signal!: SignalFigures | null;

  constructor(fields: CalibrationResultFields) {
    Object.assign(this, deepFreeze(fields));
    Object.freeze(this);
  }

  /** The result as JSON: the reference's keys first, then intervals, scores and warnings. */
  toJSON(): Record<string, unknown> {
    return {
      identity: { ...this.identity },
      cases: this.cases,
      unassessed: this.unassessed,
      sentToReview: this.sentToReview,
      automatic: this.automatic,
      correct: this.correct,
      reviewRate: this.reviewRate,
      accuracy: this.accuracy,
      bands: this.bands.map((band) => ({ ...band, expected: { ...band.expected } })),
      reviewRateInterval: this.reviewRateInterval,
      accuracyInterval: this.accuracyInterval,
      scores: this.scores,
      warnings: this.warnings,
    };
  }
}

/** Where a run's figures come from, as the calibration lock records it (not part of the report's JSON). */
export interface CalibrationContext {
  /** The Judgment's registered name. */
  readonly judgment: string;
  /** SHA-256 of the labelled cases (Evidence fingerprints, expected Outcomes, truths, languages). */
  readonly dataset: string | null;
  /** The connection and driver that answered with each model. */
  readonly connections: Readonly<Record<string, { readonly connection: string; readonly driver: string }>>;
  /** The thresholds each measured Decision declares (by Decision name; null when none). */
  readonly thresholds: Readonly<Record<string, Readonly<Record<string, number>> | null>>;
  /** When the run ended (ISO 8601). */
  readonly calibratedAt: string;
  /**
   * The Judgment's escalation cascade as asked, tier by tier: the connection, its driver, the model it answered with
   * (null when it answered no case) and the thresholds its answers were decided with; absent without a cascade.
   */
  readonly cascade?: readonly CascadeTierContext[] | null;
}

/** One tier of a calibrated cascade, as the lock records it. */
export interface CascadeTierContext {
  /** The Decision the cascade decides with (other Decisions measured beside it are not the cascade's). */
  readonly decision: string;
  readonly connection: string;
  readonly driver: string | null;
  readonly model: string | null;
  readonly thresholds: Readonly<Record<string, number>> | null;
}

/** A temperature fitted to one connection and model's labelled Likelihood answers (`fitTemperature()`). */
export interface TemperatureResult {
  readonly connection: string;
  readonly model: string;
  /** Likelihood answers with a truth the fit used. */
  readonly cases: number;
  /** The value to set as `engines.<connection>.temperatureScaling`. */
  readonly temperature: number;
  readonly nllBefore: number;
  readonly nllAfter: number;
  readonly eceBefore: number;
  readonly eceAfter: number;
}

/** What a calibration run found: one result per identity, and the Resolutions skipped for lack of a Subject. */
export class CalibrationReport {
  readonly results: readonly CalibrationResult[];

  constructor(
    results: readonly CalibrationResult[],
    /** Resolutions skipped because their Subject no longer exists (or they never had one). */
    readonly skipped: number = 0,
    /** Where the figures come from (null for a report built by hand). */
    readonly context: CalibrationContext | null = null,
    /** Temperatures fitted per connection and model, when the run asked for them (else null). */
    readonly temperatures: readonly TemperatureResult[] | null = null,
  ) {
    this.results = Object.freeze([...results]);
    deepFreeze(temperatures);
    Object.freeze(this);
  }

  /** The same report with the fitted temperatures. */
  withTemperatures(temperatures: readonly TemperatureResult[]): CalibrationReport {
    return new CalibrationReport(this.results, this.skipped, this.context, [...temperatures]);
  }

  /** `{ results: [...], skipped }` (and `temperatures` when fitted), with shares as numbers in [0, 1] or null. */
  toJSON(): { results: Record<string, unknown>[]; skipped: number; temperatures?: TemperatureResult[] } {
    const json = { results: this.results.map((result) => result.toJSON()), skipped: this.skipped };
    return this.temperatures === null ? json : { ...json, temperatures: [...this.temperatures] };
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
