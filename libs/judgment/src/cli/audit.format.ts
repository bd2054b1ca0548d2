import { type AuditAgreement, MIN_CONCLUSIVE_AUDITS } from '../lock/audit-agreement';
import type { Interval } from '../lock/wilson-interval';
import { percent, table } from './cli.output';

/** The columns of the audit table (text and HTML). */
export const AGREEMENT_HEADERS = [
  'Decision',
  'Model',
  'Questions',
  'Audits',
  'Audited accuracy',
  'Locked accuracy',
  'Verdict',
];

/** One identity's row of the audit table. */
export function agreementCells(agreement: AuditAgreement): string[] {
  return [
    decisionLabel(agreement),
    agreement.model,
    agreement.questions.slice(0, 8),
    String(agreement.audits),
    `${percent(agreement.accuracy)} (${interval(agreement.interval)})`,
    agreement.lockedInterval === null
      ? 'not in the lock'
      : `${percent(agreement.lockedAccuracy)} (${interval(agreement.lockedInterval)})`,
    verdictOf(agreement),
  ];
}

/** `DROPPED`, `inconclusive (n = 7)` when too few audits to say it holds, else `ok`. */
export function verdictOf(agreement: AuditAgreement): string {
  if (agreement.dropped) return 'DROPPED';
  return agreement.inconclusive ? `inconclusive (n = ${agreement.audits})` : 'ok';
}

/** `RefundDecision v2`. */
export function decisionLabel(agreement: AuditAgreement): string {
  return agreement.decisionVersion === null
    ? agreement.decision
    : `${agreement.decision} v${agreement.decisionVersion}`;
}

/** The audit report as text: the table, then what it was compared with. */
export function formatAgreements(judgment: string, lockFile: string | null, agreements: AuditAgreement[]): string {
  if (agreements.length === 0) return `No resolved audit of ${judgment} yet.`;
  const inconclusive = agreements.filter((agreement) => agreement.inconclusive).length;
  return [
    table(AGREEMENT_HEADERS, agreements.map(agreementCells)),
    ...(inconclusive > 0 ? [inconclusiveNote(inconclusive, agreements.length)] : []),
    lockFile ? `Compared with the calibration lock ${lockFile}.` : 'No calibration lock to compare with: pass --lock.',
  ].join('\n\n');
}

/** Why a verdict reads "inconclusive", in words. */
export function inconclusiveNote(inconclusive: number, of: number): string {
  return (
    `Inconclusive: ${inconclusive} of ${of} ${of === 1 ? 'identity has' : 'identities have'} fewer than ` +
    `${MIN_CONCLUSIVE_AUDITS} audits, too few to say the accuracy holds (a Wilson 95 % interval that wide cannot ` +
    'tell a drop of a few points). Keep auditing: “judgment audit --plan” says how many audits a target needs.'
  );
}

function interval(value: Interval | null): string {
  return value === null ? '—' : `${percent(value.low)}–${percent(value.high)}`;
}
