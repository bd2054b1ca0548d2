import type { AuditAgreement } from '../lock/audit-agreement';
import type { Interval } from '../lock/wilson-interval';
import { AGREEMENT_HEADERS, agreementCells, decisionLabel, inconclusiveNote } from './audit.format';
import { COLOURS, escape, legend, niceTicks, num, percentTick, svg, xTitle } from './chart.svg';
import { figure, htmlPage } from './report.html';

const ROW = 44;
const WIDTH = 760;
const LABELS = 200;

/**
 * The audit report as one self-contained page: per identity the audited accuracy with its Wilson interval drawn next
 * to the lock's interval, the table of figures, and the verdict (dropped when an audited interval lies wholly below;
 * inconclusive when too few audits to say it holds). `lockFile` is shown as given (the command passes it relative to
 * the current folder).
 */
export function auditHtml(judgment: string, lockFile: string | null, agreements: readonly AuditAgreement[]): string {
  const dropped = agreements.filter((agreement) => agreement.dropped);
  const inconclusive = agreements.filter((agreement) => agreement.inconclusive);
  const verdict =
    agreements.length === 0
      ? `No resolved audit of ${judgment} yet.`
      : dropped.length > 0
        ? `DROPPED: the audited accuracy of ${dropped.length} of ${agreements.length} identities lies wholly below ` +
          'the calibration lock’s interval (judgment audit exits 1).'
        : inconclusive.length > 0
          ? inconclusiveNote(inconclusive.length, agreements.length)
          : 'Holding: no audited interval lies wholly below the calibration lock’s.';
  const sections = [
    `<section><h2>Verdict</h2><p class="verdict">${escape(verdict)}</p></section>`,
    ...(agreements.length === 0
      ? []
      : [
          `<section><h2>Audited accuracy against the lock</h2>${figure(
            'Accuracy of the automatic Outcomes: audited (blue, red when dropped) and calibrated in the lock (grey), ' +
              'each a Wilson 95 % interval with a dot at the estimate; n = audits.',
            intervalChart(agreements),
          )}${agreementTable(agreements)}</section>`,
        ]),
  ];
  return htmlPage(
    `Audits of ${judgment}`,
    lockFile ? `Compared with the calibration lock ${lockFile}.` : 'No calibration lock to compare with.',
    sections,
  );
}

function agreementTable(agreements: readonly AuditAgreement[]): string {
  const head = AGREEMENT_HEADERS.map((header) => `<th>${escape(header)}</th>`).join('');
  const rows = agreements.map(
    (agreement) =>
      `<tr>${agreementCells(agreement)
        .map((cell) => `<td>${escape(cell)}</td>`)
        .join('')}</tr>`,
  );
  return `<table><tr>${head}</tr>\n${rows.join('\n')}</table>`;
}

/** One row per identity: the lock's interval above the audited one, on an accuracy axis zoomed to the intervals. */
function intervalChart(agreements: readonly AuditAgreement[]): string {
  const lows = agreements.flatMap((a) => [a.interval?.low, a.lockedInterval?.low]).filter((v) => v !== undefined);
  const ticks = niceTicks(Math.min(...lows), 1, 5).filter((tick) => tick <= 1);
  const from = ticks[0];
  const top = 34;
  const height = top + agreements.length * ROW + 50;
  const bottom = height - 50;
  const left = LABELS;
  const right = WIDTH - 24;
  const x = (value: number) => left + ((value - from) / (1 - from)) * (right - left);
  const segment = (value: Interval | null, estimate: number | null, y: number, colour: string, name: string) =>
    value === null
      ? ''
      : `<line class="${name}" x1="${num(x(value.low))}" y1="${y}" x2="${num(x(value.high))}" y2="${y}" stroke="${colour}" stroke-width="4"/>` +
        (estimate === null ? '' : `<circle cx="${num(x(estimate))}" cy="${y}" r="4" fill="${colour}"/>`);
  const format = percentTick(ticks[1] - ticks[0]);
  const parts = ticks.map(
    (tick) =>
      `<line x1="${num(x(tick))}" y1="${top}" x2="${num(x(tick))}" y2="${bottom}" stroke="${COLOURS.grid}"/>` +
      `<text class="tick" x="${num(x(tick))}" y="${bottom + 16}" text-anchor="middle">${format(tick)}</text>`,
  );
  agreements.forEach((agreement, index) => {
    const rowTop = top + index * ROW;
    parts.push(
      `<text x="${left - 10}" y="${rowTop + 15}" text-anchor="end">${escape(decisionLabel(agreement))} · ${escape(agreement.model)}</text>`,
      `<text class="note" x="${left - 10}" y="${rowTop + 29}" text-anchor="end">n = ${agreement.audits}${agreement.inconclusive ? ' (inconclusive)' : ''}</text>`,
      segment(agreement.lockedInterval, agreement.lockedAccuracy, rowTop + 12, COLOURS.reference, 'locked'),
      segment(
        agreement.interval,
        agreement.accuracy,
        rowTop + 26,
        agreement.dropped ? COLOURS.alarm : COLOURS.accuracy,
        'audited',
      ),
    );
  });
  const plot = { left, right, top, bottom, width: WIDTH, height, x, y: (value: number) => value };
  parts.push(
    `<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="${COLOURS.muted}"/>`,
    xTitle(plot, 'accuracy of automatic Outcomes'),
    legend(plot, [
      { label: 'audited', colour: COLOURS.accuracy },
      { label: 'audited, dropped', colour: COLOURS.alarm },
      { label: 'calibration lock', colour: COLOURS.reference },
    ]),
  );
  return svg(parts.join(''), WIDTH, height, 'Audited accuracy against the calibration lock');
}
