import type { Command } from 'commander';
import { judgmentName } from '../definition/judgment.decorator';
import { auditAgreements } from '../lock/audit-agreement';
import { CalibrationLock } from '../lock/calibration-lock';
import { CalibrationGuard } from '../routing/calibration.guard';
import { MAX_RECORD_LIMIT, RecordQueries } from '../records/record-queries.service';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { CliContext } from './cli.context';
import { auditHtml } from './audit.html';
import { formatAgreements } from './audit.format';
import { fail, print, printJson } from './cli.output';
import { findJudgment } from './eval.command';
import { prepareHtml, shownPath, writeHtml } from './html-file';

/** Options of `judgment audit`. */
export interface AuditOptions {
  lock?: string;
  json?: boolean;
  html?: string;
}

/**
 * `judgment audit <judgment> [--lock=judgment.lock.json] [--json] [--html=audit.html]`: the audited accuracy of the
 * automatic Outcomes per identity, with Wilson intervals, beside the lock's (`--html` also draws them on one page);
 * exits 1 when an audited interval lies wholly below the lock's (the rule AgreementDropped fires on), so it can gate a
 * deploy or run on a schedule.
 */
export function addAuditCommand(program: Command, context: CliContext): void {
  program
    .command('audit')
    .description('Compare the audited accuracy of automatic Outcomes with the calibration lock')
    .argument('<judgment>', 'the Judgment: its registered name or class name')
    .option('--lock <path>', 'the calibration lock (default: the module option calibration.lock)')
    .option('--json', 'print only JSON')
    .option('--html <path>', 'also write the report as one self-contained HTML page (intervals drawn)')
    .action((name: string, options: AuditOptions) => runAudit(context, name, options));
}

async function runAudit(context: CliContext, name: string, options: AuditOptions): Promise<void> {
  const json = options.json === true;
  try {
    const html = prepareHtml(options.html);
    await context.start();
    const judgment = judgmentName(findJudgment(context, name));
    const lock =
      options.lock !== undefined
        ? CalibrationLock.read(shownPath(options.lock))
        : context.get(CalibrationGuard).calibrationLock;
    const audited = await allAudited(context.get(RecordQueries), judgment);
    const agreements = auditAgreements(audited, lock);
    const dropped = agreements.some((agreement) => agreement.dropped);
    const lockFile = lock ? shownPath(lock.file) : null;
    writeHtml(html, auditHtml(judgment, lockFile, agreements));
    if (json) printJson({ judgment, lock: lockFile, agreements, dropped });
    else print(formatAgreements(judgment, lockFile, agreements));
    if (dropped) process.exitCode = 1;
  } catch (error) {
    fail(error, json);
  }
}

/** Every resolved audit of the Judgment, page by page (a list query returns at most MAX_RECORD_LIMIT at once). */
async function allAudited(records: RecordQueries, judgment: string): Promise<AssessmentRecord[]> {
  const all: AssessmentRecord[] = [];
  for (let after = 0; ;) {
    const page = await records.audited({ judgment, after, limit: MAX_RECORD_LIMIT });
    all.push(...page);
    if (page.length < MAX_RECORD_LIMIT) return all;
    after = page[page.length - 1].id;
  }
}
