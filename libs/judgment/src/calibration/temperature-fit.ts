import type { Provenance } from '../assessment/provenance';
import { scaledShares } from '../engines/openai/option-distribution';
import type { TemperatureResult } from './calibration.report';
import { expectedCalibrationError } from './scoring';

/** One Likelihood answer with its truth: the raw masses the model put on `yes` and `no`. */
export interface TemperatureSample {
  readonly yes: number;
  readonly no: number;
  readonly truth: boolean;
}

/** The temperature that best explains labelled answers, and how calibrated they are before and after it. */
export interface TemperatureFit {
  /** T: the option masses are raised to 1/T (T > 1 softens over-confident answers). */
  readonly temperature: number;
  readonly cases: number;
  /** Mean negative log-likelihood of the truths, unscaled (T = 1) and at T. */
  readonly nllBefore: number;
  readonly nllAfter: number;
  /** Expected calibration error over ten bins, unscaled and at T. */
  readonly eceBefore: number;
  readonly eceAfter: number;
}

/** The range of temperatures searched. */
export const TEMPERATURE_RANGE = { lowest: 0.05, highest: 20 } as const;
const LOWEST = Math.log(TEMPERATURE_RANGE.lowest);
const HIGHEST = Math.log(TEMPERATURE_RANGE.highest);
const GOLDEN = (Math.sqrt(5) - 1) / 2;

/**
 * Fits one temperature to labelled Likelihood answers by minimising the mean negative log-likelihood of their truths
 * (a golden-section search over log T, which the likelihood is unimodal in). Null when no sample has mass on both
 * sides or there are none: there is nothing to fit.
 */
export function fitTemperature(samples: readonly TemperatureSample[]): TemperatureFit | null {
  const usable = samples.filter(({ yes, no }) => yes > 0 || no > 0);
  if (usable.length === 0) return null;
  const nll = (logT: number) => meanNll(usable, Math.exp(logT));
  let low = LOWEST;
  let high = HIGHEST;
  let left = high - GOLDEN * (high - low);
  let right = low + GOLDEN * (high - low);
  for (let step = 0; step < 80; step++) {
    if (nll(left) <= nll(right)) {
      high = right;
      right = left;
      left = high - GOLDEN * (high - low);
    } else {
      low = left;
      left = right;
      right = low + GOLDEN * (high - low);
    }
  }
  const temperature = Math.exp((low + high) / 2);
  return {
    temperature,
    cases: usable.length,
    nllBefore: meanNll(usable, 1),
    nllAfter: meanNll(usable, temperature),
    eceBefore: ece(usable, 1),
    eceAfter: ece(usable, temperature),
  };
}

/** P(yes) of a sample at temperature T. */
function yesAt({ yes, no }: TemperatureSample, temperature: number): number {
  return scaledShares([yes, no], temperature)[0];
}

function meanNll(samples: readonly TemperatureSample[], temperature: number): number {
  let sum = 0;
  for (const sample of samples) {
    const yes = yesAt(sample, temperature);
    sum -= Math.log(Math.max(sample.truth ? yes : 1 - yes, 1e-12));
  }
  return sum / samples.length;
}

function ece(samples: readonly TemperatureSample[], temperature: number): number {
  return expectedCalibrationError(
    samples.map((sample) => ({ probability: yesAt(sample, temperature), truth: sample.truth })),
  ) as number;
}

/**
 * One fit per connection and model, over the answered cases' Likelihood truths and the option masses their Provenance
 * recorded (`details.masses`: `[yes, no]` per Likelihood). Connections whose driver records no masses are left out.
 */
export function fitTemperatures(
  cases: ReadonlyArray<{ readonly provenance: Provenance; readonly truth: Readonly<Record<string, boolean>> }>,
): TemperatureResult[] {
  const groups = new Map<string, { connection: string; model: string; samples: TemperatureSample[] }>();
  for (const { provenance, truth } of cases) {
    const { engine: connection, model, details } = provenance;
    const masses = (details.masses ?? {}) as Record<string, unknown>;
    const key = JSON.stringify([connection, model]);
    for (const [question, value] of Object.entries(truth)) {
      const pair = masses[question];
      if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((mass) => typeof mass === 'number')) continue;
      const group = groups.get(key) ?? { connection, model, samples: [] };
      groups.set(key, group);
      group.samples.push({ yes: pair[0] as number, no: pair[1] as number, truth: value });
    }
  }
  return [...groups.values()].flatMap(({ connection, model, samples }) => {
    const fit = fitTemperature(samples);
    return fit === null ? [] : [{ connection, model, ...fit }];
  });
}
