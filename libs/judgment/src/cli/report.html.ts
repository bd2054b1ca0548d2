import type { CalibrationReport, CalibrationResult } from '../calibration/calibration.report';
import type { CalibrationSuggestion, ThresholdSuggestion } from '../calibration/threshold-suggestion';
import { languageLabel, percent } from './cli.output';

// One self-contained HTML page (no script, no external asset): inline SVG charts drawn here, as plain SVG is all a
// few line and bar charts need.

/** The size of every chart, and the margin left for its axes. */
export const WIDTH = 360;
const HEIGHT = 240;
export const PAD = 40;

/** A calibration report (and its suggestions, when asked) as one self-contained HTML page. */
export function reportHtml(report: CalibrationReport, suggestion: CalibrationSuggestion | null = null): string {
  const sections = report.results.map(resultSection);
  for (const item of suggestion?.suggestions ?? []) sections.push(suggestionSection(item));
  return htmlPage(
    `Calibration of ${report.context?.judgment ?? 'a Judgment'}`,
    report.context
      ? `Calibrated ${report.context.calibratedAt}; dataset ${report.context.dataset?.slice(0, 12) ?? '—'}…`
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
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 64rem; color: #1d2330; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } figure { display: inline-block; margin: 0 1.5rem 1rem 0; }
figcaption { font-size: 0.85rem; color: #4a5263; } svg text { font-size: 10px; fill: #4a5263; }
table { border-collapse: collapse; } td, th { padding: 0.2rem 0.6rem; border-bottom: 1px solid #d8dce4; text-align: left; }
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

function resultSection(result: CalibrationResult): string {
  const { identity } = result;
  const version = identity.decisionVersion === null ? '' : ` v${identity.decisionVersion}`;
  const reliability = result.scores.map((score) =>
    figure(
      `Reliability of ${score.question} (Brier ${fixed(score.brier)}, ECE ${fixed(score.expectedCalibrationError)})`,
      chart('predicted probability', 'observed share true', [
        {
          points: [
            [0, 0],
            [1, 1],
          ],
          colour: '#9aa3b5',
          dashed: true,
        },
        {
          points: score.reliability
            .filter((bin) => bin.meanPredicted !== null && bin.observed !== null)
            .map((bin) => [bin.meanPredicted as number, bin.observed as number] as [number, number]),
          colour: '#2456c7',
          dots: true,
        },
      ]),
    ),
  );
  const questions = [...new Set(result.bands.map((band) => band.question))];
  const bands = questions.map((question) => {
    const own = result.bands.filter((band) => band.question === question);
    return figure(
      `Accuracy (blue) and review rate (orange) per band of ${question}`,
      barChart(
        own.map((band) => ({ from: band.from, to: band.to, accuracy: band.accuracy, reviewRate: band.reviewRate })),
      ),
    );
  });
  return `<section>
<h2>${escape(`${identity.decision}${version} · ${identity.model} · ${languageLabel(identity.language)}`)}</h2>
<table><tr><th>Cases</th><th>Review rate</th><th>Accuracy</th></tr>
<tr><td>${result.cases}</td><td>${percent(result.reviewRate)}</td><td>${percent(result.accuracy)}</td></tr></table>
${reliability.join('\n')}
${bands.join('\n')}
</section>`;
}

function suggestionSection(suggestion: ThresholdSuggestion): string {
  const frontier = suggestion.frontier.map((point) => [point.reviewRate, point.errorBound] as [number, number]);
  const chosen = suggestion.chosen
    ? [[suggestion.chosen.reviewRate, suggestion.chosen.errorBound] as [number, number]]
    : [];
  const target = suggestion.target.maxError;
  return `<section>
<h2>${escape(`Suggested thresholds · ${suggestion.identity.decision}`)}</h2>
<p>${escape(suggestion.verdict)}</p>
${figure(
  'Frontier: review rate against the error bound; the chosen point in red, the target dashed',
  chart(
    'review rate',
    'error bound',
    [
      {
        points: [
          [0, target],
          [1, target],
        ],
        colour: '#c7243a',
        dashed: true,
      },
      { points: frontier, colour: '#2456c7', dots: true },
      { points: chosen, colour: '#c7243a', dots: true, big: true },
    ],
    Math.min(1, Math.max(target * 2, ...frontier.map(([, bound]) => bound))),
  ),
)}
</section>`;
}

interface Series {
  points: Array<[number, number]>;
  colour: string;
  dashed?: boolean;
  dots?: boolean;
  big?: boolean;
}

function chart(xLabel: string, yLabel: string, series: Series[], yMax = 1): string {
  const x = (value: number) => PAD + value * (WIDTH - 2 * PAD);
  const y = (value: number) => HEIGHT - PAD - (Math.min(value, yMax) / yMax) * (HEIGHT - 2 * PAD);
  const lines = series.map((s) => {
    const path =
      s.points.length > 1
        ? `<polyline fill="none" stroke="${s.colour}" stroke-width="1.5"${s.dashed ? ' stroke-dasharray="4 3"' : ''} points="${s.points.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(' ')}"/>`
        : '';
    const dots = s.dots
      ? s.points
          .map(
            ([a, b]) =>
              `<circle cx="${x(a).toFixed(1)}" cy="${y(b).toFixed(1)}" r="${s.big ? 5 : 2.5}" fill="${s.colour}"/>`,
          )
          .join('')
      : '';
    return path + dots;
  });
  return svg(`${axes(xLabel, yLabel, yMax)}${lines.join('')}`);
}

function barChart(
  bands: Array<{ from: number; to: number; accuracy: number | null; reviewRate: number | null }>,
): string {
  const x = (value: number) => PAD + value * (WIDTH - 2 * PAD);
  const y = (value: number) => HEIGHT - PAD - value * (HEIGHT - 2 * PAD);
  const bars = bands.map((band) => {
    const width = (x(band.to) - x(band.from)) / 2 - 1;
    const bar = (value: number | null, offset: number, colour: string) =>
      value === null
        ? ''
        : `<rect x="${(x(band.from) + offset).toFixed(1)}" y="${y(value).toFixed(1)}" width="${width.toFixed(1)}" height="${(y(0) - y(value)).toFixed(1)}" fill="${colour}"/>`;
    return bar(band.accuracy, 0, '#2456c7') + bar(band.reviewRate, width + 1, '#e08a1e');
  });
  return svg(`${axes('answer', 'share', 1)}${bars.join('')}`);
}

function axes(xLabel: string, yLabel: string, yMax: number): string {
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (t) =>
        `<text x="${PAD - 6}" y="${(HEIGHT - PAD - t * (HEIGHT - 2 * PAD) + 3).toFixed(1)}" text-anchor="end">${fixed(t * yMax, 2)}</text>`,
    )
    .join('');
  return `<line x1="${PAD}" y1="${HEIGHT - PAD}" x2="${WIDTH - PAD}" y2="${HEIGHT - PAD}" stroke="#4a5263"/><line x1="${PAD}" y1="${PAD}" x2="${PAD}" y2="${HEIGHT - PAD}" stroke="#4a5263"/>${ticks}<text x="${WIDTH / 2}" y="${HEIGHT - 8}" text-anchor="middle">${escape(xLabel)}</text><text x="12" y="${HEIGHT / 2}" transform="rotate(-90 12 ${HEIGHT / 2})" text-anchor="middle">${escape(yLabel)}</text>`;
}

export function svg(body: string, width = WIDTH, height = HEIGHT): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">${body}</svg>`;
}

export function figure(caption: string, content: string): string {
  return `<figure>${content}<figcaption>${escape(caption)}</figcaption></figure>`;
}

function fixed(value: number | null, digits = 3): string {
  return value === null ? '—' : value.toFixed(digits);
}

export function escape(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}
