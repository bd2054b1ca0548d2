import type { Command } from 'commander';
import { resolve } from 'node:path';
import { judgmentName } from '../definition/judgment.decorator';
import { type AuditAgreement, auditAgreements } from '../lock/audit-agreement';
import { CalibrationLock } from '../lock/calibration-lock';
import { CalibrationGuard } from '../recording/calibration.guard';
import { RecordQueries } from '../records/record-queries.service';
import type { CliContext } from './cli.context';
import { fail, percent, print, printJson, table } from './cli.output';
import { findJudgment } from './eval.command';

/** Options of `judgment audit`. */
export interface AuditOptions {
  lock?: string;
  json?: boolean;
}

/**
 * `judgment audit <judgment> [--lock=judgment.lock.json] [--json]`: the audited accuracy of the automatic Outcomes per
 * identity, with Wilson intervals, beside the lock's; exits 1 when an audited interval lies wholly below the lock's
 * (the rule AgreementDropped fires on), so it can gate a deploy or run on a schedule.
 */
export function addAuditCommand(program: Command, context: CliContext): void {
  program
    .command('audit')
    .description('Compare the audited accuracy of automatic Outcomes with the calibration lock')
    .argument('<judgment>', 'the Judgment: its registered name or class name')
    .option('--lock <path>', 'the calibration lock (default: the module option calibration.lock)')
    .option('--json', 'print only JSON')
    .action((name: string, options: AuditOptions) => runAudit(context, name, options));
}

async function runAudit(context: CliContext, name: string, options: AuditOptions): Promise<void> {
  const json = options.json === true;
  try {
    await context.start();
    const judgment = judgmentName(findJudgment(context, name));
    const lock =
      options.lock !== undefined
        ? CalibrationLock.read(resolve(options.lock))
        : context.get(CalibrationGuard).calibrationLock;
    const audited = await context.get(RecordQueries).audited({ judgment });
    const agreements = auditAgreements(audited, lock);
    const dropped = agreements.some((agreement) => agreement.dropped);
    if (json) printJson({ judgment, lock: lock?.file ?? null, agreements, dropped });
    else print(formatAgreements(judgment, lock, agreements));
    if (dropped) process.exitCode = 1;
  } catch (error) {
    fail(error, json);
  }
}

function formatAgreements(judgment: string, lock: CalibrationLock | null, agreements: AuditAgreement[]): string {
  if (agreements.length === 0) return `No resolved audit of ${judgment} yet.`;
  const interval = (value: { low: number; high: number } | null) =>
    value === null ? '—' : `${percent(value.low)}–${percent(value.high)}`;
  return [
    table(
      ['Decision', 'Model', 'Questions', 'Audits', 'Audited accuracy', 'Locked accuracy', 'Verdict'],
      agreements.map((agreement) => [
        agreement.decisionVersion === null ? agreement.decision : `${agreement.decision} v${agreement.decisionVersion}`,
        agreement.model,
        agreement.questions.slice(0, 8),
        agreement.audits,
        `${percent(agreement.accuracy)} (${interval(agreement.interval)})`,
        agreement.lockedInterval === null
          ? 'not in the lock'
          : `${percent(agreement.lockedAccuracy)} (${interval(agreement.lockedInterval)})`,
        agreement.dropped ? 'DROPPED' : 'ok',
      ]),
    ),
    lock ? `Compared with the calibration lock ${lock.file}.` : 'No calibration lock to compare with: pass --lock.',
  ].join('\n\n');
}
