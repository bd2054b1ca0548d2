import type { ClassificationAnswer, LikelihoodAnswer, LikelihoodSetAnswer, RatingAnswer } from '../assessment/answers';
import type { Assessment } from '../assessment/assessment';
import { type AnswerSignal, signalFigures } from '../lock/signal-figures';
import type { QuestionMap } from '../questions/question';
import {
  type CalibrationBand,
  type CalibrationContext,
  type CalibrationIdentity,
  CalibrationReport,
  CalibrationResult,
  type LikelihoodScore,
} from './calibration.report';
import type { CaseTruth } from './labelled-case';
import {
  type Forecast,
  bandBounds,
  bandIndex,
  brierScore,
  expectedCalibrationError,
  reliabilityTable,
  share,
  wilsonInterval,
} from './scoring';

/** Below this many cases a group's rates get a small-sample warning. */
export const SMALL_SAMPLE = 30;

/** One answer measured for banding: a probability (Likelihood, set label) or a Confidence (Classification, Rating). */
export interface Measure {
  readonly key: string;
  readonly value: number;
  /** Whether the value is a Likelihood's probability (and so can be scored against a truth). */
  readonly likelihood: boolean;
}

/** One assessed case decided by one Decision. */
export interface DecidedCase {
  readonly outcome: string;
  readonly expected: string;
  readonly sentToReview: boolean;
  readonly measures: readonly Measure[];
  readonly truth: CaseTruth;
  /** The figures of each of the case's answers (`answerSignals`), for the lock's signal figures. */
  readonly signals: readonly AnswerSignal[];
}

interface Counts {
  cases: number;
  sentToReview: number;
  automatic: number;
  correct: number;
}

interface BandTally extends Counts {
  expected: Map<string, number>;
}

interface GroupTally extends Counts {
  identity: CalibrationIdentity;
  unassessed: number;
  /** Measure keys in the order first seen (declaration order). */
  measureOrder: string[];
  bands: Map<string, Map<number, BandTally>>;
  forecasts: Map<string, Forecast[]>;
  signals: AnswerSignal[];
}

/** An Assessment read by plain string keys (the keys come from its own Questions). */
interface KeyedReader {
  likelihood(key: string): LikelihoodAnswer;
  likelihoodSet(key: string): LikelihoodSetAnswer;
  classification(key: string): ClassificationAnswer;
  rating(key: string): RatingAnswer;
}

/** The measures of an Assessment, by Question in declaration order. */
export function measuresOf(assessment: Assessment<any>, questions: QuestionMap): Measure[] {
  const reader = assessment as unknown as KeyedReader;
  const measures: Measure[] = [];
  for (const [key, question] of Object.entries(questions)) {
    switch (question.kind) {
      case 'likelihood':
        measures.push({ key, value: reader.likelihood(key).probability, likelihood: true });
        break;
      case 'likelihood_set': {
        const answer = reader.likelihoodSet(key);
        for (const label of question.labels) {
          measures.push({ key: `${key}.${label}`, value: answer.of(label).probability, likelihood: true });
        }
        break;
      }
      case 'classification':
        measures.push({ key, value: reader.classification(key).confidence, likelihood: false });
        break;
      case 'rating':
        measures.push({ key, value: reader.rating(key).confidence, likelihood: false });
        break;
    }
  }
  return measures;
}

/** The keys a case's truth may name: each Likelihood, and each Likelihood Set label as `set.label`. */
export function likelihoodKeys(questions: QuestionMap): string[] {
  return Object.entries(questions).flatMap(([key, question]) => {
    if (question.kind === 'likelihood') return [key];
    if (question.kind === 'likelihood_set') return question.labels.map((label) => `${key}.${label}`);
    return [];
  });
}

/** Tallies decided and unassessed cases into results that never mix identities (insertion-ordered). */
export class CalibrationTally {
  private readonly groups = new Map<string, GroupTally>();

  /** Counts a case the Engine failed to assess. */
  unassessed(identity: CalibrationIdentity): void {
    this.group(identity).unassessed += 1;
  }

  /** Counts an assessed case's Outcome, and files it in a band of each measure. */
  decided(identity: CalibrationIdentity, decided: DecidedCase): void {
    const group = this.group(identity);
    count(group, decided);
    group.signals.push(...decided.signals);
    for (const measure of decided.measures) {
      if (!group.bands.has(measure.key)) {
        group.bands.set(measure.key, new Map());
        group.measureOrder.push(measure.key);
      }
      const bands = group.bands.get(measure.key) as Map<number, BandTally>;
      const index = bandIndex(measure.value);
      let band = bands.get(index);
      if (!band)
        bands.set(index, (band = { cases: 0, sentToReview: 0, automatic: 0, correct: 0, expected: new Map() }));
      count(band, decided);
      band.expected.set(decided.expected, (band.expected.get(decided.expected) ?? 0) + 1);
      const truth = decided.truth[measure.key];
      if (measure.likelihood && typeof truth === 'boolean') {
        const forecasts = group.forecasts.get(measure.key) ?? [];
        forecasts.push({ probability: measure.value, truth });
        group.forecasts.set(measure.key, forecasts);
      }
    }
  }

  /** The report of everything tallied. */
  report(skipped: number, context: CalibrationContext | null = null): CalibrationReport {
    return new CalibrationReport([...this.groups.values()].map(result), skipped, context);
  }

  private group(identity: CalibrationIdentity): GroupTally {
    const key = JSON.stringify([
      identity.questions,
      identity.model,
      identity.decision,
      identity.decisionVersion,
      identity.language,
    ]);
    let group = this.groups.get(key);
    if (!group) {
      group = {
        identity,
        cases: 0,
        unassessed: 0,
        sentToReview: 0,
        automatic: 0,
        correct: 0,
        measureOrder: [],
        bands: new Map(),
        forecasts: new Map(),
        signals: [],
      };
      this.groups.set(key, group);
    }
    return group;
  }
}

function count(counts: Counts, decided: DecidedCase): void {
  counts.cases += 1;
  if (decided.sentToReview) {
    counts.sentToReview += 1;
  } else {
    counts.automatic += 1;
    if (decided.outcome === decided.expected) counts.correct += 1;
  }
}

function result(group: GroupTally): CalibrationResult {
  const assessed = group.cases;
  const cases = assessed + group.unassessed;
  const bands: CalibrationBand[] = group.measureOrder.flatMap((key) =>
    [...(group.bands.get(key) as Map<number, BandTally>)]
      .sort(([a], [b]) => a - b)
      .map(([index, band]) => ({
        question: key,
        ...bandBounds(index),
        cases: band.cases,
        expected: Object.fromEntries([...band.expected].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
        sentToReview: band.sentToReview,
        automatic: band.automatic,
        correct: band.correct,
        reviewRate: share(band.sentToReview, band.cases),
        accuracy: share(band.correct, band.automatic),
      })),
  );
  const scores: LikelihoodScore[] = group.measureOrder
    .filter((key) => group.forecasts.has(key))
    .map((key) => {
      const forecasts = group.forecasts.get(key) as Forecast[];
      return {
        question: key,
        cases: forecasts.length,
        brier: brierScore(forecasts),
        expectedCalibrationError: expectedCalibrationError(forecasts),
        reliability: reliabilityTable(forecasts),
      };
    });
  const warnings =
    cases < SMALL_SAMPLE
      ? [
          `Only ${cases} ${cases === 1 ? 'case' : 'cases'} in this group: below ${SMALL_SAMPLE} the rates are rough, ` +
            'so read them with their 95 % intervals and label more cases before trusting a threshold.',
        ]
      : [];
  return new CalibrationResult({
    identity: group.identity,
    cases,
    unassessed: group.unassessed,
    sentToReview: group.sentToReview,
    automatic: group.automatic,
    correct: group.correct,
    reviewRate: share(group.sentToReview, assessed),
    accuracy: share(group.correct, group.automatic),
    reviewRateInterval: wilsonInterval(group.sentToReview, assessed),
    accuracyInterval: wilsonInterval(group.correct, group.automatic),
    bands,
    scores,
    warnings,
    signal: signalFigures(group.signals),
  });
}
