import type { Assessment } from '../assessment/assessment';
import type { Decision, DecisionMetadata } from '../decision/decision.decorator';
import { type Thresholds, decisionThresholds, withThresholds } from '../decision/thresholds';
import type { Outcome } from '../definition/outcome';
import type { ResolvedPrice } from '../engines/pricing/connection-price';
import { paidUsage, roundCost } from '../engines/pricing/round-cost';
import { InvalidSuggestion } from '../errors';
import {
  type CascadeSuggestionResult,
  type CascadeTierCandidate,
  DEFAULT_CASCADE_GRID_STEP,
  VERDICT,
  suggestCascade,
} from './cascade-suggestion';
import {
  type CapacityCheck,
  DEFAULT_MIN_BAND,
  type ReviewBand,
  type SuggestOptions,
  candidateGrid,
  capacityCheck,
  declaredBands,
  decideCase,
  describeBand,
  foundBands,
} from './threshold-suggestion';

/** One tier of the cascade being calibrated, with its answer to every case (null where it could not answer). */
export interface CascadeTierAnswers {
  readonly connection: string;
  readonly driver: string | null;
  /** The model the tier answered with (null when it answered no case). */
  readonly model: string | null;
  /** The connection's declared price, or null. */
  readonly price: ResolvedPrice | null;
  /** The thresholds the tier decides with now: the Decision's, with the tier's own in their place. */
  readonly thresholds: Thresholds;
  /** Per case, in the cases' order. */
  readonly answers: readonly (Assessment<any> | null)[];
}

/** One tier as a cascade suggestion describes it. */
export interface CascadeTierSetup {
  /** 1 for the first tier. */
  readonly tier: number;
  readonly connection: string;
  readonly driver: string | null;
  readonly model: string | null;
  /** The currency of the tier's price (null without one). */
  readonly currency: string | null;
  /** The tier's candidate thresholds searched (its Review bands kept at least minBand wide). */
  readonly candidates: number;
  /** The Review bands kept open. */
  readonly bands: readonly ReviewBand[];
}

/** The thresholds suggested for every tier of a Judgment's cascade, from one run that asked each tier each case once. */
export interface CascadeThresholdSuggestion {
  readonly judgment: string;
  readonly decision: string;
  readonly decisionVersion: string | null;
  readonly tiers: readonly CascadeTierSetup[];
  readonly minBand: number;
  /** Cases some tier could not answer, left out of the search (their paid answers are in the report). */
  readonly leftOut: number;
  /** The review capacity the choice was held to (`maxReviewsPerDay`), or null. */
  readonly capacity: CapacityCheck | null;
  /** The search itself: the choice, each tier alone, the sequence, the verdict. */
  readonly result: CascadeSuggestionResult;
}

/**
 * The thresholds of every tier chosen together (suggestCascade) over answers already asked: no Engine call. Each
 * tier's candidates are its thresholds on a grid (DEFAULT_CASCADE_GRID_STEP unless `options.grid`), its Review bands
 * kept at least minBand wide; each case's cost at a tier is the tier's price × the usage its answer reported.
 */
export function suggestCascadeThresholds(
  judgment: string,
  decision: Decision,
  metadata: DecisionMetadata,
  tiers: readonly CascadeTierAnswers[],
  expected: readonly Outcome[],
  options: SuggestOptions,
): CascadeThresholdSuggestion {
  const objective = options.objective ?? 'cost';
  // Only cases every tier answered can be followed down the cascade.
  const kept = expected.map((_, i) => i).filter((i) => tiers.every((tier) => tier.answers[i] !== null));
  if (kept.length === 0) {
    throw new InvalidSuggestion(
      `No case of ${judgment} was answered by every tier of its cascade, so no thresholds can be suggested: check ` +
        `the connections (${tiers.map((t) => t.connection).join(', ')}) with \`judgment probe\`.`,
    );
  }
  const minBand = options.minBand ?? DEFAULT_MIN_BAND;
  // One Decision decides at every tier, so its Review bands are the same at every tier: declared, or found from the
  // Decision's own thresholds over every tier's answers together.
  const declared = decisionThresholds(decision) as Thresholds;
  const bands = options.reviewBands
    ? declaredBands(metadata.name, declared, options.reviewBands)
    : foundBands(
        decision,
        metadata,
        declared,
        tiers.flatMap((tier) =>
          kept.map((i) => ({ assessment: tier.answers[i] as Assessment<any>, expected: expected[i] })),
        ),
      );
  const setups: CascadeTierSetup[] = [];
  const inputs = tiers.map((tier, k) => {
    const where = `${metadata.name} (tier ${k + 1}, "${tier.connection}")`;
    const cases = kept.map((i) => ({ assessment: tier.answers[i] as Assessment<any>, expected: expected[i] }));
    const grid = candidateGrid(where, tier.thresholds, options.grid, DEFAULT_CASCADE_GRID_STEP).filter((values) =>
      bands.every(({ lower, upper }) => values[upper] - values[lower] >= minBand - 1e-9),
    );
    if (grid.length === 0) {
      throw new InvalidSuggestion(
        `No candidate of ${where} keeps its Review bands (${bands.map(describeBand).join(', ')}) at least ` +
          `${minBand} wide: give a grid with wider gaps, or a smaller minBand (--min-band).`,
      );
    }
    setups.push({
      tier: k + 1,
      connection: tier.connection,
      driver: tier.driver,
      model: tier.model,
      currency: tier.price?.currency ?? null,
      candidates: grid.length,
      bands,
    });
    const verdictsOf = (values: Thresholds): CascadeTierCandidate => {
      const candidate = withThresholds(decision, values);
      const verdicts = new Uint8Array(cases.length);
      cases.forEach(({ assessment, expected: right }, i) => {
        const outcome = decideCase(candidate, metadata, assessment);
        verdicts[i] = metadata.review.has(outcome) ? VERDICT.band : outcome === right ? VERDICT.right : VERDICT.wrong;
      });
      return { thresholds: values, verdicts };
    };
    return {
      input: {
        name: tier.connection,
        candidates: grid.map(verdictsOf),
        costs: tier.price === null ? null : tierCosts(tier, cases, objective),
      },
      current: verdictsOf(tier.thresholds),
    };
  });
  const currencies = new Set(setups.map((s) => s.currency).filter((c) => c !== null));
  if (objective === 'cost' && currencies.size > 1) {
    throw new InvalidSuggestion(
      `The tiers of ${judgment} are priced in different currencies (${[...currencies].join(', ')}): their costs ` +
        "cannot be added. Declare every tier's price in one currency, or ask for the fewest reviews (--objective review).",
    );
  }
  const traffic = options.traffic ?? null;
  const capacityRate =
    options.maxReviewsPerDay === undefined || traffic === null
      ? null
      : Math.min(1, options.maxReviewsPerDay / traffic.perDay);
  const maxReviewRate =
    capacityRate === null ? (options.maxReviewRate ?? null) : Math.min(capacityRate, options.maxReviewRate ?? 1);
  const result = suggestCascade(
    inputs.map((tier) => tier.input),
    {
      maxError: options.maxError,
      confidence: options.confidence,
      maxReviewRate,
      objective,
      ...(options.learnFraction === undefined ? {} : { learnFraction: options.learnFraction }),
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      current: inputs.map((tier) => tier.current),
    },
  );
  const capacity =
    options.maxReviewsPerDay === undefined
      ? null
      : capacityCheck(
          options.maxReviewsPerDay,
          traffic,
          capacityRate,
          result.chosen && { reviewRate: result.chosen.reviewRate },
        );
  return Object.freeze({
    judgment,
    decision: metadata.name,
    decisionVersion: metadata.version,
    tiers: setups,
    minBand,
    leftOut: expected.length - kept.length,
    capacity,
    result,
  });
}

/**
 * What asking the tier cost for each case: its price × the usage the answer reported. A cost that cannot be known (a
 * token count the price charges for was not reported) is never made up: the suggestion stops, saying so.
 */
function tierCosts(
  tier: CascadeTierAnswers,
  cases: readonly { assessment: Assessment<any> }[],
  objective: 'cost' | 'review',
): number[] | null {
  let unknown = 0;
  const costs = cases.map(({ assessment }) => {
    const cost = roundCost(tier.connection, tier.price, paidUsage(assessment.provenance.details.usage)).amount;
    if (cost === null) unknown += 1;
    return cost ?? NaN;
  });
  if (unknown === 0) return costs;
  if (objective === 'review') return null;
  throw new InvalidSuggestion(
    `${unknown} answers of the tier "${tier.connection}" reported no usage that engines.${tier.connection}.price ` +
      'charges for, so their cost is unknown and none is made up: price the connection per request ' +
      '(perRequest), or ask for the fewest reviews (--objective review).',
  );
}
