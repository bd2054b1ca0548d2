import type {
  CalibrationBand,
  CalibrationReport,
  CalibrationResult,
  LikelihoodScore,
} from '../calibration/calibration.report';
import { SMALL_SAMPLE } from '../calibration/calibration.tally';
import type { CalibrationSuggestion } from '../calibration/calibration-suggestion';
import type { ThresholdSuggestion } from '../calibration/threshold-suggestion';
import {
  type Axis,
  COLOURS,
  axes,
  escape,
  legend,
  niceTicks,
  num,
  percentTick,
  plotArea,
  svg,
  xTitle,
} from './chart.svg';
import { languageLabel, percent } from './cli.output';
import { temperatureCaution } from './report.format';

// One self-contained HTML page (no script, no external asset): inline SVG charts drawn by chart.svg.ts. Plain SVG
// was chosen over a charting library: Vega-Lite with vega's headless renderer would add 79 packages and 25 MB to
// an install whose dependencies weigh 12 MB, for a handful of line and bar charts.

export { escape } from './chart.svg';

const BANDS = 10;
const SHARE_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1];
const SHARE_AXIS = { min: 0, max: 1, ticks: SHARE_TICKS, format: percentTick(0.2) };

/** A calibration report (and its suggestions, when asked) as one self-contained HTML page. */
export function reportHtml(report: CalibrationReport, suggestion: CalibrationSuggestion | null = null): string {
  const sections = report.results.map(resultSection);
  for (const item of suggestion?.suggestions ?? []) sections.push(suggestionSection(item));
  if (report.temperatures !== null && report.temperatures.length > 0) sections.push(temperatureSection(report));
  return htmlPage(
    `Calibration of ${report.context?.judgment ?? 'a Judgment'}`,
    report.context
      ? `Calibrated ${report.context.calibratedAt}; dataset fingerprint ${report.context.dataset?.slice(0, 12) ?? '—'}….`
      : '',
    sections,
  );
}

/** One self-contained page (no script, no external asset): a title, a line under it, and the sections' HTML. */
export function htmlPage(title: string, lead: string, sections: readonly string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escape(title)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: ${COLOURS.ink}; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
figure { display: inline-block; vertical-align: top; margin: 0 1.5rem 1.5rem 0; }
figcaption { font-size: 0.85rem; color: ${COLOURS.muted}; max-width: 36rem; }
svg text { font-size: 11px; fill: ${COLOURS.muted}; } svg text.axis-title { font-size: 12px; fill: ${COLOURS.ink}; }
svg text.note { font-size: 10px; } svg text.mark { font-size: 11px; font-weight: 600; }
svg text.mark, svg text.note { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; } td, th { padding: 0.2rem 0.6rem; border-bottom: 1px solid #d8dce4; text-align: left; }
.caution { color: #8a4b00; } .verdict { font-weight: 600; }
</style>
</head>
<body>
<h1>${escape(title)}</h1>
<p>${escape(lead)}</p>
${sections.join('\n')}
</body>
</html>
`;
}

/** A figure with its caption (the caption is text, escaped). */
export function figure(caption: string, content: string): string {
  return `<figure>${content}<figcaption>${escape(caption)}</figcaption></figure>`;
}

function resultSection(result: CalibrationResult): string {
  const { identity } = result;
  const version = identity.decisionVersion === null ? '' : ` v${identity.decisionVersion}`;
  const reliability = result.scores.map(reliabilityFigure);
  const questions = [...new Set(result.bands.map((band) => band.question))];
  const bands = questions.map((question) =>
    bandFigure(
      question,
      result.bands.filter((band) => band.question === question),
    ),
  );
  const warnings = result.warnings.map((warning) => `<p class="caution">${escape(warning)}</p>`);
  return `<section>
<h2>${escape(`${identity.decision}${version} · ${identity.model} · ${languageLabel(identity.language)}`)}</h2>
<table><tr><th>Cases</th><th>Review rate</th><th>Accuracy of automatic Outcomes</th></tr>
<tr><td>${result.cases}</td><td>${percent(result.reviewRate)}</td><td>${percent(result.accuracy)}</td></tr></table>
${warnings.join('\n')}
${reliability.join('\n')}
${bands.join('\n')}
</section>`;
}

/** Observed share true against mean predicted probability, per tenth, with the diagonal of perfect calibration. */
function reliabilityFigure(score: LikelihoodScore): string {
  const width = 420;
  const height = 340;
  const x: Axis = { title: 'predicted probability (mean of the bin)', ...SHARE_AXIS };
  const y: Axis = { title: 'observed share true', ...SHARE_AXIS };
  const plot = plotArea(width, height, x, y);
  const bins = score.reliability.filter((bin) => bin.meanPredicted !== null && bin.observed !== null);
  const largest = Math.max(1, ...bins.map((bin) => bin.count));
  const diagonal = `<line x1="${num(plot.x(0))}" y1="${num(plot.y(0))}" x2="${num(plot.x(1))}" y2="${num(plot.y(1))}" stroke="${COLOURS.reference}" stroke-width="1.5" stroke-dasharray="5 4"/>`;
  const line =
    bins.length > 1
      ? `<polyline fill="none" stroke="${COLOURS.accuracy}" stroke-width="1.5" points="${bins
          .map((bin) => `${num(plot.x(bin.meanPredicted as number))},${num(plot.y(bin.observed as number))}`)
          .join(' ')}"/>`
      : '';
  const dots = bins
    .map((bin) => {
      const radius = 3 + 5 * Math.sqrt(bin.count / largest);
      const faded = bin.count < SMALL_SAMPLE ? ' fill-opacity="0.45"' : '';
      return (
        `<circle class="bin" cx="${num(plot.x(bin.meanPredicted as number))}" cy="${num(plot.y(bin.observed as number))}" r="${num(radius)}" fill="${COLOURS.accuracy}"${faded}>` +
        `<title>${escape(`${bin.from.toFixed(1)}–${bin.to.toFixed(1)}: n = ${bin.count}, observed ${percent(bin.observed)}`)}</title></circle>`
      );
    })
    .join('');
  const few = bins.filter((bin) => bin.count < SMALL_SAMPLE).length;
  const body =
    axes(plot, x, y) +
    legend(plot, [
      { label: 'observed (dot area: cases)', colour: COLOURS.accuracy },
      { label: 'perfect calibration', colour: COLOURS.reference, dashed: true },
    ]) +
    diagonal +
    line +
    dots;
  return figure(
    `Reliability of ${score.question}: ${score.cases} cases, Brier ${fixed(score.brier)}, ECE ${fixed(score.expectedCalibrationError)}.` +
      (few > 0 ? ` Faded dots rest on fewer than ${SMALL_SAMPLE} cases: rough.` : ''),
    svg(body, width, height, `Reliability diagram of ${score.question}`),
  );
}

/**
 * Accuracy and review rate per tenth of a Question's answer. Every tenth has its slot: an empty one is drawn as a
 * hatched "no cases" column, a 0 % bar as a line on the axis with its label, and the count is written under each.
 */
function bandFigure(question: string, bands: readonly CalibrationBand[]): string {
  const width = 660;
  const height = 330;
  const y: Axis = { title: 'share of the band’s cases', ...SHARE_AXIS };
  const x: Axis = { title: '', min: 0, max: BANDS, ticks: [], format: String };
  const plot = plotArea(width, height, x, y, { left: 68, right: 16, top: 34, bottom: 66 });
  const byIndex = new Map(bands.map((band) => [Math.round(band.from * BANDS), band]));
  const slot = (plot.right - plot.left) / BANDS;
  const barWidth = slot * 0.36;
  const parts: string[] = [
    `<defs><pattern id="empty-band" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="${COLOURS.grid}" stroke-width="3"/></pattern></defs>`,
    axes(plot, null, y),
  ];
  for (let index = 0; index < BANDS; index++) {
    const left = plot.x(index);
    const centre = left + slot / 2;
    const band = byIndex.get(index);
    parts.push(
      `<text class="tick" x="${num(centre)}" y="${plot.bottom + 15}" text-anchor="middle">${(index / BANDS).toFixed(1)}–${((index + 1) / BANDS).toFixed(1)}</text>`,
      `<text class="note band-count" x="${num(centre)}" y="${plot.bottom + 29}" text-anchor="middle">n = ${band?.cases ?? 0}</text>`,
    );
    if (!band) {
      parts.push(
        `<rect class="empty-band" x="${num(left + 3)}" y="${plot.top}" width="${num(slot - 6)}" height="${num(plot.bottom - plot.top)}" fill="url(#empty-band)"/>`,
        `<text class="note" x="${num(centre)}" y="${num((plot.top + plot.bottom) / 2)}" text-anchor="middle">no cases</text>`,
      );
      continue;
    }
    const faded = band.cases < SMALL_SAMPLE ? ' fill-opacity="0.45"' : '';
    const bar = (value: number | null, offset: number, colour: string, name: string) => {
      const barLeft = centre - barWidth - 1 + offset;
      if (value === null) {
        return `<text class="note" x="${num(barLeft + barWidth / 2)}" y="${plot.bottom - 4}" text-anchor="middle" style="fill: ${colour}">—</text>`;
      }
      const top = plot.y(value);
      const height = Math.max(2, plot.bottom - top);
      return (
        `<rect class="${name}" x="${num(barLeft)}" y="${num(plot.bottom - height)}" width="${num(barWidth)}" height="${num(height)}" fill="${colour}"${faded}>` +
        `<title>${escape(`${name} ${percent(value)} of ${band.cases} cases`)}</title></rect>` +
        (value === 0
          ? `<text class="note zero" x="${num(barLeft + barWidth / 2)}" y="${plot.bottom - 5}" text-anchor="middle">0 %</text>`
          : '')
      );
    };
    parts.push(
      bar(band.accuracy, 0, COLOURS.accuracy, 'accuracy'),
      bar(band.reviewRate, barWidth + 2, COLOURS.review, 'review rate'),
    );
  }
  parts.push(
    xTitle(plot, `answer to ${question} (tenths of the probability or confidence)`),
    legend(plot, [
      { label: 'accuracy of automatic Outcomes', colour: COLOURS.accuracy },
      { label: 'sent to Review', colour: COLOURS.review },
    ]),
  );
  const few = bands.filter((band) => band.cases < SMALL_SAMPLE).length;
  return figure(
    `Accuracy and review rate per band of ${question}; n = cases in the band. Hatched: no case fell in the band. ` +
      '— : no automatic Outcome in the band (all sent to Review).' +
      (few > 0 ? ` Faded bars rest on fewer than ${SMALL_SAMPLE} cases: rough.` : ''),
    svg(parts.join(''), width, height, `Accuracy and review rate per band of ${question}`),
  );
}

/** The frontier of review rate against error bound as a curve, the chosen point, the current one and the target. */
function suggestionSection(suggestion: ThresholdSuggestion): string {
  const { identity, target, chosen, current } = suggestion;
  const version = identity.decisionVersion === null ? '' : ` v${identity.decisionVersion}`;
  const frontier = [...suggestion.frontier].sort((a, b) => a.reviewRate - b.reviewRate);
  const rates = [...frontier, current].map((point) => point.reviewRate);
  const bounds = [...frontier, current].map((point) => point.errorBound);
  const xTicks = niceTicks(0, Math.max(0.01, ...rates) * 1.05);
  const yTicks = niceTicks(0, Math.min(1, Math.max(target.maxError * 1.5, ...bounds)));
  const x: Axis = {
    title: 'review rate (share of cases sent to Review)',
    min: 0,
    max: xTicks[xTicks.length - 1],
    ticks: xTicks,
    format: percentTick(xTicks[1] - xTicks[0]),
  };
  const y: Axis = {
    title: `error bound (${percent(target.confidence)} confidence)`,
    min: 0,
    max: yTicks[yTicks.length - 1],
    ticks: yTicks,
    format: percentTick(yTicks[1] - yTicks[0]),
  };
  const width = 620;
  const height = 380;
  const plot = plotArea(width, height, x, y);
  const at = (point: { reviewRate: number; errorBound: number }) =>
    `${num(plot.x(point.reviewRate))},${num(plot.y(point.errorBound))}`;
  const targetY = num(plot.y(target.maxError));
  const parts = [
    axes(plot, x, y),
    `<line class="target" x1="${plot.left}" y1="${targetY}" x2="${plot.right}" y2="${targetY}" stroke="${COLOURS.alarm}" stroke-width="1.5" stroke-dasharray="6 4"/>`,
    `<text class="note" x="${plot.right - 4}" y="${num(plot.y(target.maxError) - 5)}" text-anchor="end" style="fill: ${COLOURS.alarm}">target: error ≤ ${percent(target.maxError)}</text>`,
    frontier.length > 1
      ? `<polyline class="frontier" fill="none" stroke="${COLOURS.accuracy}" stroke-width="2" points="${frontier.map(at).join(' ')}"/>`
      : '',
    ...frontier.map(
      (point) =>
        `<circle class="frontier-point" cx="${num(plot.x(point.reviewRate))}" cy="${num(plot.y(point.errorBound))}" r="3" fill="${COLOURS.accuracy}"><title>${escape(`${JSON.stringify(point.thresholds)}: review ${percent(point.reviewRate)}, bound ${percent(point.errorBound)}`)}</title></circle>`,
    ),
    chosen ? marker(plot, chosen, 'chosen', COLOURS.alarm, 'circle') : '',
    marker(plot, current, 'current', COLOURS.ink, 'diamond'),
    legend(plot, [
      { label: 'frontier', colour: COLOURS.accuracy },
      { label: 'chosen', colour: COLOURS.alarm },
      { label: 'current thresholds (outlined diamond)', colour: COLOURS.ink },
      { label: 'target', colour: COLOURS.alarm, dashed: true },
    ]),
  ];
  return `<section>
<h2>${escape(`Suggested thresholds · ${identity.decision}${version} · ${identity.model}`)}</h2>
<p class="verdict">${escape(suggestion.verdict)}</p>
${figure(
  'Frontier: the candidates no other beats on both review rate and error bound (one-sided Clopper–Pearson bound on ' +
    'the test half). A candidate under the dashed target line meets the error target; the chosen one sends the fewest ' +
    'cases to Review of those the test half certified, so it may lie off the curve. ' +
    `Chosen: ${chosen ? JSON.stringify(chosen.thresholds) : 'none meets the target'}; current: ` +
    `${JSON.stringify(current.thresholds)}. ${suggestion.cases} assessed cases (${suggestion.testCases} in the test half).`,
  svg(parts.join(''), width, height, `Frontier of ${identity.decision}`),
)}
</section>`;
}

function marker(
  plot: ReturnType<typeof plotArea>,
  point: { reviewRate: number; errorBound: number; thresholds: unknown },
  label: string,
  colour: string,
  shape: 'circle' | 'diamond',
): string {
  const cx = plot.x(point.reviewRate);
  const cy = plot.y(point.errorBound);
  const title = `<title>${escape(`${label} ${JSON.stringify(point.thresholds)}`)}</title>`;
  const mark =
    shape === 'circle'
      ? `<circle class="${label}" cx="${num(cx)}" cy="${num(cy)}" r="6" fill="${colour}" stroke="#fff" stroke-width="1.5">${title}</circle>`
      : `<path class="${label}" d="M${num(cx)} ${num(cy - 9)} L${num(cx + 9)} ${num(cy)} L${num(cx)} ${num(cy + 9)} L${num(cx - 9)} ${num(cy)} Z" fill="none" stroke="${colour}" stroke-width="2">${title}</path>`;
  // The label sits right of the mark, or left of it near the right edge: the chosen point's above it, the current
  // one's below (so both read when they fall together).
  const right = cx < plot.right - 230;
  const dy = label === 'chosen' ? (cy < plot.top + 20 ? 22 : -11) : cy > plot.bottom - 20 ? -22 : 19;
  const text = `${label}: ${percent(point.reviewRate)} reviewed, bound ${percent(point.errorBound)}`;
  return (
    mark +
    `<text class="mark" x="${num(cx + (right ? 10 : -10))}" y="${num(cy + dy)}" text-anchor="${right ? 'start' : 'end'}" style="fill: ${colour}">${escape(text)}</text>`
  );
}

function temperatureSection(report: CalibrationReport): string {
  const rows = (report.temperatures ?? []).map(
    (fit) =>
      `<tr><td>${escape(fit.connection)}</td><td>${escape(fit.model)}</td><td>${fit.cases}</td><td>${fit.temperature.toFixed(3)}</td><td>${fixed(fit.eceBefore)} → ${fixed(fit.eceAfter)}</td></tr>`,
  );
  const cautions = (report.temperatures ?? [])
    .map(temperatureCaution)
    .filter((caution): caution is string => caution !== null)
    .map((caution) => `<p class="caution">${escape(caution)}</p>`);
  return `<section><h2>Temperature scaling</h2>
<table><tr><th>Connection</th><th>Model</th><th>Answers</th><th>Temperature</th><th>ECE before → after</th></tr>
${rows.join('\n')}</table>
${cautions.join('\n')}
</section>`;
}

function fixed(value: number | null, digits = 3): string {
  return value === null ? '—' : value.toFixed(digits);
}
