import type { AuditAgreement } from '../lock/audit-agreement';
import type { Interval } from '../lock/wilson-interval';
import { AGREEMENT_HEADERS, agreementCells, decisionLabel } from './audit.format';
import { percent } from './cli.output';
import { PAD, WIDTH, escape, figure, htmlPage, svg } from './report.html';

const ROW = 34;

/**
 * The audit report as one self-contained page: per identity the audited accuracy with its Wilson interval drawn next
 * to the lock's interval, the table of figures, and the verdict (dropped when an audited interval lies wholly below).
 */
export function auditHtml(judgment: string, lockFile: string | null, agreements: readonly AuditAgreement[]): string {
  const dropped = agreements.filter((agreement) => agreement.dropped);
  const verdict =
    agreements.length === 0
      ? `No resolved audit of ${judgment} yet.`
      : dropped.length > 0
        ? `DROPPED: the audited accuracy of ${dropped.length} of ${agreements.length} identities lies wholly below ` +
          'the calibration lock’s interval (judgment audit exits 1).'
        : 'Holding: no audited interval lies wholly below the calibration lock’s.';
  const sections = [
    `<section><h2>Verdict</h2><p class="verdict">${escape(verdict)}</p></section>`,
    ...(agreements.length === 0
      ? []
      : [
          `<section><h2>Audited accuracy against the lock</h2>${figure(
            'Audited accuracy (blue, red when dropped) and the lock’s (grey): Wilson 95 % intervals, dot at the estimate',
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
  const from = Math.max(0, Math.floor(Math.min(...lows) * 10) / 10);
  const height = PAD + agreements.length * ROW + PAD;
  const x = (value: number) => PAD * 3 + ((value - from) / (1 - from)) * (WIDTH * 2 - PAD * 4);
  const segment = (value: Interval | null, estimate: number | null, y: number, colour: string) =>
    value === null
      ? ''
      : `<line x1="${x(value.low).toFixed(1)}" y1="${y}" x2="${x(value.high).toFixed(1)}" y2="${y}" stroke="${colour}" stroke-width="4"/>` +
        (estimate === null ? '' : `<circle cx="${x(estimate).toFixed(1)}" cy="${y}" r="4" fill="${colour}"/>`);
  const rows = agreements.map((agreement, index) => {
    const top = PAD + index * ROW;
    return (
      `<text x="${PAD * 3 - 6}" y="${top + 14}" text-anchor="end">${escape(decisionLabel(agreement))}</text>` +
      `<text x="${PAD * 3 - 6}" y="${top + 26}" text-anchor="end">${escape(agreement.model)}</text>` +
      segment(agreement.lockedInterval, agreement.lockedAccuracy, top + 8, '#9aa3b5') +
      segment(agreement.interval, agreement.accuracy, top + 20, agreement.dropped ? '#c7243a' : '#2456c7')
    );
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => from + t * (1 - from));
  const axis =
    `<line x1="${x(from)}" y1="${height - PAD}" x2="${x(1)}" y2="${height - PAD}" stroke="#4a5263"/>` +
    ticks
      .map((t) => `<text x="${x(t).toFixed(1)}" y="${height - PAD + 14}" text-anchor="middle">${percent(t)}</text>`)
      .join('') +
    `<text x="${x((from + 1) / 2).toFixed(1)}" y="${height - 8}" text-anchor="middle">accuracy of automatic Outcomes</text>`;
  return svg(axis + rows.join(''), WIDTH * 2, height);
}
