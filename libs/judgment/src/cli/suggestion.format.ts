import type { CalibrationSuggestion } from '../calibration/calibration-suggestion';
import { type CandidateFigures, type ThresholdSuggestion, describeSequence } from '../calibration/threshold-suggestion';
import { bold, percent, table } from './cli.output';

/** Frontier rows printed at most (evenly picked, the chosen one always shown). */
const FRONTIER_ROWS = 15;

/** A suggestion as text: per Decision and identity, the target, the frontier, the choice and what to do next. */
export function formatSuggestion(result: CalibrationSuggestion): string {
  return result.suggestions.map(formatOne).join('\n\n');
}

function formatOne(suggestion: ThresholdSuggestion): string {
  const { identity, target } = suggestion;
  const version = identity.decisionVersion === null ? '' : ` v${identity.decisionVersion}`;
  const perDay = suggestion.capacity?.traffic?.perDay ?? null;
  const parts = [
    bold(
      `Suggested thresholds · ${identity.decision}${version} · ${identity.model} · questions ${identity.questions.slice(0, 8)}`,
    ),
    `Target: error of automatic Outcomes ≤ ${percent(target.maxError)} with ${percent(target.confidence)} confidence` +
      (target.maxReviewRate === null ? '' : `, review rate ≤ ${percent(target.maxReviewRate)}`) +
      `. ${suggestion.candidates} candidates over ${suggestion.cases} assessed cases (${suggestion.learnCases} order, ` +
      `${suggestion.testCases} test); no further Engine call.`,
    `Method: ${suggestion.method}`,
    `Assumption: ${suggestion.assumption}`,
    describeBands(suggestion),
    ...(suggestion.capacity ? [suggestion.capacity.statement] : []),
    table(
      [
        '',
        'Thresholds',
        'Review rate',
        ...(perDay === null ? [] : ['Reviews/day']),
        'Observed error',
        `Error bound (${percent(target.confidence)})`,
        'Certified',
      ],
      frontierRows(suggestion).map(([label, figures]) => [
        label,
        describeThresholds(figures.thresholds),
        percent(figures.reviewRate),
        ...(perDay === null ? [] : [reviewsPerDay(figures.reviewRate, perDay, suggestion)]),
        percent(figures.observedError),
        percent(figures.errorBound),
        STATUS[figures.status],
      ]),
    ),
    // Without a choice the verdict says how the sequence went.
    ...(suggestion.chosen ? [describeSequence(suggestion.sequence, target)] : []),
    suggestion.verdict,
  ];
  if (suggestion.chosen && suggestion.nextVersion !== null) {
    parts.push(
      [
        `Next version of ${identity.decision} (apply, then \`judgment eval … --lock\` and commit the lock):`,
        `  @Decision({ …, version: '${suggestion.nextVersion}' })`,
        `  readonly thresholds = ${describeThresholds(suggestion.chosen.thresholds)};`,
      ].join('\n'),
    );
  }
  return parts.join('\n\n');
}

/** A candidate's reviews a day at the recorded traffic, marked when above the capacity. */
function reviewsPerDay(reviewRate: number, perDay: number, suggestion: ThresholdSuggestion): string {
  const load = Math.round(reviewRate * perDay * 10) / 10;
  const max = suggestion.capacity?.maxReviewsPerDay ?? Infinity;
  return reviewRate * perDay > max ? `${load} (over ${max})` : String(load);
}

/** Why a row is certified or not, in the Certified column. */
const STATUS: Record<CandidateFigures['status'], string> = {
  certified: 'yes',
  stopped: 'no: failed, stopped the sequence',
  'after-stop': 'no: not tested (after the stop)',
  'not-ordered': 'no: not ordered (learn half)',
};

/** Which Review bands the candidates kept open, and how wide. */
function describeBands(suggestion: ThresholdSuggestion): string {
  if (suggestion.bands.length === 0) {
    return (
      'Review bands: none found between the current thresholds (declare one with --band lower:upper, or ' +
      'reviewBands, to keep it open).'
    );
  }
  const bands = suggestion.bands
    .map((band) => `${band.lower}–${band.upper}${band.declared ? '' : ' (found from the current thresholds)'}`)
    .join(', ');
  return `Review bands kept at least ${suggestion.minBand} wide: ${bands}; no candidate closes one.`;
}

/** The current thresholds, the chosen ones, and up to FRONTIER_ROWS frontier points by review rate. */
function frontierRows(suggestion: ThresholdSuggestion): Array<[string, CandidateFigures]> {
  const frontier = suggestion.frontier;
  const step = Math.max(1, Math.ceil(frontier.length / FRONTIER_ROWS));
  const picked = frontier.filter((_, index) => index % step === 0);
  const rows: Array<[string, CandidateFigures]> = [['current', suggestion.current]];
  if (suggestion.chosen) rows.push(['chosen', suggestion.chosen]);
  for (const figures of picked) {
    if (figures !== suggestion.chosen) rows.push(['frontier', figures]);
  }
  return rows;
}

/** `{ escalate: 0.3, reject: 0.62 }`, keys in declaration order. */
export function describeThresholds(thresholds: Readonly<Record<string, number>>): string {
  return `{ ${Object.entries(thresholds)
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ')} }`;
}
