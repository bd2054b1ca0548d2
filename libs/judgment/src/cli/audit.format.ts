import type { AuditAgreement } from '../lock/audit-agreement';
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
    agreement.dropped ? 'DROPPED' : 'ok',
  ];
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
  return [
    table(AGREEMENT_HEADERS, agreements.map(agreementCells)),
    lockFile ? `Compared with the calibration lock ${lockFile}.` : 'No calibration lock to compare with: pass --lock.',
  ].join('\n\n');
}

function interval(value: Interval | null): string {
  return value === null ? '—' : `${percent(value.low)}–${percent(value.high)}`;
}
