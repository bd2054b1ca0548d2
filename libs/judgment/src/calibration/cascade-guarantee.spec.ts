// The guarantee of the cascade suggestion, checked empirically (issue 33, point 5): over many calibration sets drawn
// from known distributions, the chosen thresholds' true error across the cascade — measured on a large fresh sample
// of the same distribution — exceeds the target in no more than 1 − confidence of the draws, within a tolerance.
// Fast, seeded, no network.
//
// The distributions: a case is positive with probability 0.3. Two tiers answer it with a probability
//   cheap:  sigmoid(1.2 · (2·truth − 1) + N(0, 1))     (noisier; price 1 per case)
//   strong: sigmoid(3.0 · (2·truth − 1) + N(0, 1))     (sharper; price 20 per case)
// with independent noise given the truth. A tier decides positive above its upper threshold, negative at or below its
// lower one, and escalates (the last tier: sends to Review) in between; thresholds on a 0.1 grid, bands ≥ 0.1 wide.
import { type CascadeTierInput, bandCandidates, suggestCascade } from './cascade-suggestion';
import { mulberry32 } from '../fingerprint/seeded-random';

const PREVALENCE = 0.3;
const SEPARATION = { cheap: 1.2, strong: 3.0 };
const PRICE = { cheap: 1, strong: 20 };
const GRID = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
const TARGET = { maxError: 0.05, confidence: 0.9 };
const DRAWS = 300;
const CALIBRATION_CASES = 1000;
const FRESH_CASES = 200_000;
/** Three standard errors of the exceedance rate over DRAWS draws at rate 1 − confidence. */
const TOLERANCE = 3 * Math.sqrt((TARGET.confidence * (1 - TARGET.confidence)) / DRAWS);

interface Sample {
  readonly labels: boolean[];
  readonly cheap: Float64Array;
  readonly strong: Float64Array;
}

function draw(n: number, random: () => number): Sample {
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
  const labels: boolean[] = [];
  const cheap = new Float64Array(n);
  const strong = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    const truth = random() < PREVALENCE;
    const sign = truth ? 1 : -1;
    labels.push(truth);
    cheap[i] = sigmoid(SEPARATION.cheap * sign + normal());
    strong[i] = sigmoid(SEPARATION.strong * sign + normal());
  }
  return { labels, cheap, strong };
}

type Band = Readonly<Record<string, number>>;

/** The error rate of the cascade's automatic Outcomes with these thresholds on a sample (null when none is automatic). */
function cascadeError(sample: Sample, cheap: Band, strong: Band): number | null {
  let automatic = 0;
  let wrong = 0;
  for (let i = 0; i < sample.labels.length; i += 1) {
    let p = sample.cheap[i];
    let band = cheap;
    if (!(p > band.upper || p <= band.lower)) {
      p = sample.strong[i];
      band = strong;
      if (!(p > band.upper || p <= band.lower)) continue;
    }
    automatic += 1;
    if (p > band.upper !== sample.labels[i]) wrong += 1;
  }
  return automatic === 0 ? null : wrong / automatic;
}

function tiersOf(sample: Sample): CascadeTierInput[] {
  const n = sample.labels.length;
  return [
    {
      name: 'cheap',
      candidates: bandCandidates(sample.cheap, sample.labels, { grid: GRID }),
      costs: new Array<number>(n).fill(PRICE.cheap),
    },
    {
      name: 'strong',
      candidates: bandCandidates(sample.strong, sample.labels, { grid: GRID }),
      costs: new Array<number>(n).fill(PRICE.strong),
    },
  ];
}

/**
 * The choice without a guarantee, as a control: the cheapest joint thresholds whose error on all the calibration cases
 * is at most the target. It overfits the draw; the check below must catch it.
 */
function naiveChoice(sample: Sample): [Band, Band] | null {
  let best: { cost: number; bands: [Band, Band] } | null = null;
  const pairs: Band[] = [];
  for (const lower of GRID) for (const upper of GRID) if (upper - lower >= 0.1 - 1e-9) pairs.push({ lower, upper });
  for (const cheap of pairs) {
    let escalated = 0;
    for (const p of sample.cheap) if (!(p > cheap.upper || p <= cheap.lower)) escalated += 1;
    const cost = PRICE.cheap + (PRICE.strong * escalated) / sample.labels.length;
    if (best !== null && cost > best.cost) continue;
    for (const strong of pairs) {
      const error = cascadeError(sample, cheap, strong);
      if (error !== null && error <= TARGET.maxError && (best === null || cost < best.cost)) {
        best = { cost, bands: [cheap, strong] };
      }
    }
  }
  return best?.bands ?? null;
}

describe('the cascade suggestion’s guarantee (simulation)', () => {
  const fresh = draw(FRESH_CASES, mulberry32(20_260_933));
  const figures: string[] = [];

  afterAll(() => process.stdout.write(`${figures.join('\n')}\n`));

  it(`exceeds the target in at most 1 − confidence of ${DRAWS} draws, within ${TOLERANCE.toFixed(3)}`, () => {
    const random = mulberry32(33);
    let chosen = 0;
    let exceeded = 0;
    let cascadeCost = 0;
    for (let d = 0; d < DRAWS; d += 1) {
      const sample = draw(CALIBRATION_CASES, random);
      const result = suggestCascade(tiersOf(sample), { ...TARGET, seed: d + 1 });
      if (result.chosen === null) continue;
      chosen += 1;
      cascadeCost += result.chosen.costPerDecision as number;
      const [cheap, strong] = result.chosen.tiers.map((tier) => tier.thresholds);
      const trueError = cascadeError(fresh, cheap, strong) ?? 0;
      if (trueError > TARGET.maxError) exceeded += 1;
    }
    const rate = exceeded / DRAWS;
    figures.push(
      `Cascade guarantee simulation: ${DRAWS} draws of ${CALIBRATION_CASES} cases, target error ≤ ` +
        `${TARGET.maxError} at confidence ${TARGET.confidence}: certified in ${chosen} draws, true error above the ` +
        `target in ${exceeded} (rate ${rate.toFixed(3)}; allowed ${(1 - TARGET.confidence).toFixed(3)} + ` +
        `${TOLERANCE.toFixed(3)}); mean cost per decision of the choice ${(cascadeCost / Math.max(chosen, 1)).toFixed(2)} ` +
        `(strong tier alone: ${PRICE.strong}).`,
    );
    expect(rate).toBeLessThanOrEqual(1 - TARGET.confidence + TOLERANCE);
    // Not vacuous: the target is met in most draws, and the cascade is cheaper than the strong tier alone.
    expect(chosen).toBeGreaterThanOrEqual(0.8 * DRAWS);
    expect(cascadeCost / chosen).toBeLessThan(PRICE.strong / 2);
  });

  it('catches a choice without a guarantee (the control): the cheapest thresholds meeting the target on the draw', () => {
    const random = mulberry32(34);
    const draws = 100;
    let exceeded = 0;
    for (let d = 0; d < draws; d += 1) {
      const bands = naiveChoice(draw(CALIBRATION_CASES, random));
      if (bands && (cascadeError(fresh, ...bands) ?? 0) > TARGET.maxError) exceeded += 1;
    }
    figures.push(`Control (no guarantee): true error above the target in ${exceeded} of ${draws} draws.`);
    expect(exceeded / draws).toBeGreaterThan(1 - TARGET.confidence + TOLERANCE);
  });
});
