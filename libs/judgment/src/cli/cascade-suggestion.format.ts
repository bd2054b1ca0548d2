import type { CascadeThresholdSuggestion } from '../calibration/cascade-calibration';
import { type CascadePoint, formatCost } from '../calibration/cascade-suggestion';
import { bold, percent, table } from './cli.output';
import { describeThresholds } from './suggestion.format';

/**
 * A cascade suggestion as text: the target and method, the chosen thresholds tier by tier (share decided, escalation
 * rate, cost per decision), the cascade beside each tier alone at the same target, and the declaration to apply.
 */
export function formatCascadeSuggestion(suggestion: CascadeThresholdSuggestion): string {
  const { result, tiers } = suggestion;
  const { target } = result;
  const version = suggestion.decisionVersion === null ? '' : ` v${suggestion.decisionVersion}`;
  const currency = tiers[0].currency ?? '';
  const cost = (value: number | null) =>
    value === null ? '—' : `${formatCost(value)}${currency ? ` ${currency}` : ''}`;
  const bands = [...new Set(tiers.flatMap((tier) => tier.bands.map((band) => `${band.lower}–${band.upper}`)))];
  const parts = [
    bold(
      `Suggested cascade thresholds · ${suggestion.judgment} · ${suggestion.decision}${version} · ${tiers.length} tiers`,
    ),
    `Target: error of automatic Outcomes across the cascade ≤ ${percent(target.maxError)} with ` +
      `${percent(target.confidence)} confidence` +
      (target.maxReviewRate === null ? '' : `, review rate ≤ ${percent(target.maxReviewRate)}`) +
      `; minimising ${target.objective === 'cost' ? 'the cost per decision' : 'the review rate'}. ` +
      `${result.jointCandidates} joint candidates (${tiers.map((tier) => tier.candidates).join(' × ')}) over ` +
      `${result.cases} cases (${result.learnCases} order, ${result.testCases} test), every tier asked each case ` +
      'once; no further Engine call.' +
      (suggestion.leftOut === 0 ? '' : ` ${suggestion.leftOut} cases some tier could not answer were left out.`),
    `Method: ${result.method}`,
    `Assumption: ${result.assumption}`,
    bands.length === 0
      ? 'Review bands: none found between the current thresholds (declare one with --band lower:upper).'
      : `Review bands kept at least ${suggestion.minBand} wide in every tier: ${bands.join(', ')}; no candidate ` +
        'closes one.',
    ...(suggestion.capacity ? [suggestion.capacity.statement] : []),
  ];
  if (result.chosen) parts.push(bold('Chosen, tier by tier'), tierTable(suggestion, result.chosen, cost));
  parts.push(
    bold(`At the same target (${percent(target.maxError)} at ${percent(target.confidence)})`),
    table(
      ['', 'Thresholds', 'Decided', 'Review rate', 'Observed error', 'Error bound', 'Cost per decision'],
      [
        ...(result.current ? [pointRow('cascade now (not tested)', result.current, cost)] : []),
        result.chosen
          ? pointRow('cascade, chosen', result.chosen, cost)
          : ['cascade', `no joint thresholds certify it`, '—', '—', '—', '—', '—'],
        ...result.alone.map((tier) =>
          tier.chosen
            ? pointRow(`${tier.name} alone`, tier.chosen, cost)
            : [`${tier.name} alone`, tier.statement, '—', '—', '—', '—', cost(tier.costPerDecision)],
        ),
      ],
    ),
    result.verdict,
  );
  if (result.sequence.stoppedBy) {
    const stop = result.sequence.stoppedBy;
    parts.push(
      `The learn half ordered ${result.sequence.ordered} joint candidates; the test half certified ` +
        `${result.sequence.certified} and stopped at ${stop.tiers.map((t) => describeThresholds(t.thresholds)).join(' → ')}: ` +
        `${stop.testWrong} of its ${stop.testAutomatic} automatic Outcomes on the test half were wrong.`,
    );
  }
  if (result.chosen) {
    parts.push(
      [
        `The cascade to declare (apply, then \`judgment eval ${suggestion.judgment} … --lock\` and commit the lock):`,
        '  @Judgment({ …, cascade: [',
        ...result.chosen.tiers.map(
          (tier) => `    { connection: '${tier.name}', thresholds: ${describeThresholds(tier.thresholds)} },`,
        ),
        '  ] })',
      ].join('\n'),
    );
  }
  return parts.join('\n\n');
}

function tierTable(
  suggestion: CascadeThresholdSuggestion,
  point: CascadePoint,
  cost: (value: number | null) => string,
): string {
  const last = point.tiers.length - 1;
  return table(
    ['Tier', 'Connection', 'Model', 'Thresholds', 'Asked', 'Decided', 'Escalation rate', 'Cost per decision'],
    point.tiers.map((tier, index) => [
      String(index + 1),
      tier.name,
      suggestion.tiers[index].model ?? '—',
      describeThresholds(tier.thresholds),
      percent(tier.reached),
      percent(tier.decided),
      `${percent(tier.escalationRate)} → ${index === last ? 'Review' : `tier ${index + 2}`}`,
      cost(tier.costPerDecision),
    ]),
  );
}

function pointRow(label: string, point: CascadePoint, cost: (value: number | null) => string): string[] {
  return [
    label,
    point.tiers.map((tier) => describeThresholds(tier.thresholds)).join(' → '),
    percent(1 - point.reviewRate),
    percent(point.reviewRate),
    percent(point.observedError),
    percent(point.errorBound),
    cost(point.costPerDecision),
  ];
}
