import type { Command } from 'commander';
import { JudgmentChecks } from '../checks/judgment-checks.service';
import { type CheckFinding, type CheckReport, JudgmentCheckFailed } from '../errors';
import { PROBE_REQUESTS } from '../engines/openai/openai.probe';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import { DEFAULT_DRIVER } from '../judgment.defaults';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { CliUsageError } from './cli.errors';
import { probeConnection, probeFindings } from './probe.command';
import type { CliContext } from './cli.context';
import { bold, fail, plural, print, printJson } from './cli.output';

/**
 * `judgment check [--json] [--probe]`: reads every registered Judgment and Decision and reports what will fail when
 * asked (exit 1) and what runs but misleads (warnings, exit 0). No network, no workers, no Engine round — unless
 * `--probe`, which also probes each openai connection the Judgments are asked on (`judgment probe`, a few requests
 * each). An app that cannot start is reported as one failure, its startup error.
 */
export function addCheckCommand(program: Command, context: CliContext): void {
  program
    .command('check')
    .description('Check every registered Judgment and Decision before the first paid round (failures exit 1)')
    .option('--json', 'print only JSON')
    .option('--probe', `also probe each openai connection the Judgments use (${PROBE_REQUESTS} requests each)`)
    .action((options: { json?: boolean; probe?: boolean }) =>
      runCheck(context, options.json === true, options.probe === true),
    );
}

async function runCheck(context: CliContext, json: boolean, probe: boolean): Promise<void> {
  let report: CheckReport;
  try {
    await context.start();
    const checks = context.get(JudgmentChecks);
    report = await checks.runWithDatabase();
    if (probe) report = await withProbes(report, checks, context.get(RESOLVED_JUDGMENT_OPTIONS), json);
  } catch (error) {
    if (error instanceof CliUsageError) return fail(error, json);
    report = error instanceof JudgmentCheckFailed ? error.report : startupFailure(error);
  }
  if (json) printJson(report);
  else print(formatCheck(report));
  process.exitCode = report.failures > 0 ? 1 : 0;
}

/** The report with the findings of a probe of each openai connection the registered Judgments are asked on. */
async function withProbes(
  report: CheckReport,
  checks: JudgmentChecks,
  options: ResolvedJudgmentOptions,
  json: boolean,
): Promise<CheckReport> {
  const findings = [...report.findings];
  for (const [connection, questions] of checks.questionsByConnection()) {
    const driver = options.connections[connection]?.driver ?? DEFAULT_DRIVER;
    if (driver !== 'openai') continue;
    findings.push(...probeFindings(await probeConnection(options, connection, questions, json)));
  }
  findings.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'failure' ? -1 : 1));
  const failures = findings.filter((finding) => finding.severity === 'failure').length;
  return { ...report, findings, failures, warnings: findings.length - failures };
}

/** The report of an app that could not start: its startup error as the one failure. */
function startupFailure(error: unknown): CheckReport {
  const message = error instanceof Error ? error.message : String(error);
  return {
    judgments: [],
    decisions: [],
    failures: 1,
    warnings: 0,
    findings: [
      {
        severity: 'failure',
        rule: 'startup',
        judgment: null,
        decision: null,
        key: null,
        problem: `The app cannot start: ${message}`,
        fix: 'Fix what the message names; the Judgments are checked once the app starts.',
      },
    ],
  };
}

function formatCheck(report: CheckReport): string {
  const groups = new Map<string, CheckFinding[]>();
  for (const finding of report.findings) {
    const title = finding.judgment ?? (finding.decision ? `Decision ${finding.decision}` : 'The app');
    groups.set(title, [...(groups.get(title) ?? []), finding]);
  }
  const lines: string[] = [];
  for (const [title, findings] of groups) {
    lines.push(bold(title));
    for (const finding of findings) {
      const key = finding.key === null ? '' : ` "${finding.key}"`;
      lines.push(`  ${finding.severity === 'failure' ? 'FAIL' : 'WARN'} [${finding.rule}]${key} ${finding.problem}`);
      lines.push(`       Fix: ${finding.fix}`);
    }
    lines.push('');
  }
  const checked = `Checked ${plural(report.judgments.length, 'Judgment')} and ${plural(report.decisions.length, 'Decision')}`;
  lines.push(`${checked}: ${plural(report.failures, 'failure')}, ${plural(report.warnings, 'warning')}.`);
  return lines.join('\n');
}
