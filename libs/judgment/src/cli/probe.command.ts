import type { Command } from 'commander';
import { JudgmentChecks } from '../checks/judgment-checks.service';
import { OpenAiEngine } from '../engines/openai/openai.engine';
import { PROBE_REQUESTS, type OpenAiProbeReport, type ProbedQuestion } from '../engines/openai/openai.probe';
import type { CheckFinding } from '../errors';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { DEFAULT_DRIVER } from '../judgment.defaults';
import { CliUsageError } from './cli.errors';
import type { CliContext } from './cli.context';
import { bold, fail, plural, print, printJson, table } from './cli.output';

/**
 * `judgment probe [connection] [--json]`: asks an openai connection (the default one unless named) three fixed
 * questions and reports what it can do for the app's registered Questions. Says what it costs before it asks; exit 1
 * when it found a failure.
 */
export function addProbeCommand(program: Command, context: CliContext): void {
  program
    .command('probe [connection]')
    .description(
      `Ask an openai connection ${PROBE_REQUESTS} fixed questions and report what it can do (failures exit 1)`,
    )
    .option('--json', 'print only JSON')
    .action((connection: string | undefined, options: { json?: boolean }) =>
      runProbe(context, connection, options.json === true),
    );
}

async function runProbe(context: CliContext, connection: string | undefined, json: boolean): Promise<void> {
  try {
    await context.start();
    const options = context.get<ResolvedJudgmentOptions>(RESOLVED_JUDGMENT_OPTIONS);
    const name = connection ?? options.defaultConnection;
    const questions = context.get(JudgmentChecks).questionsByConnection().get(name) ?? [];
    const report = await probeConnection(options, name, questions, json);
    if (json) printJson(report);
    else print(formatProbe(report));
    process.exitCode = report.failures > 0 ? 1 : 0;
  } catch (error) {
    fail(error, json);
  }
}

/**
 * Probes one openai connection for `questions`, first saying on stderr (stdout without `json`) how many requests it
 * sends. A connection that is not configured, or not of the openai driver, is a CliUsageError.
 */
export async function probeConnection(
  options: ResolvedJudgmentOptions,
  name: string,
  questions: readonly ProbedQuestion[],
  json: boolean,
): Promise<OpenAiProbeReport> {
  const config = Object.hasOwn(options.connections, name) ? options.connections[name] : undefined;
  if (config === undefined) {
    const configured = Object.keys(options.connections).join(', ') || 'none';
    throw new CliUsageError(`There is no Engine connection "${name}" to probe (configured: ${configured}).`);
  }
  const driver = config.driver ?? DEFAULT_DRIVER;
  if (driver !== 'openai') {
    const named = typeof driver === 'string' ? driver : `class ${driver.name}`;
    throw new CliUsageError(
      `The Engine connection "${name}" uses the ${named} driver: judgment probe asks openai connections only.`,
    );
  }
  const engine = OpenAiEngine.connect(name, config);
  const { url } = engine.toJSON();
  const cost =
    `Probing connection "${name}" (${url}, model ${engine.model()}): ${plural(PROBE_REQUESTS, 'request')}, ` +
    `for ${plural(questions.length, 'registered Question')}.`;
  if (json) process.stderr.write(`${cost}\n`);
  else print(cost);
  return engine.probe(questions, config.allowAliases === true);
}

/** A probe report's findings as `judgment check` findings (rule `probe:<check>`, about the app). */
export function probeFindings(report: OpenAiProbeReport): CheckFinding[] {
  return report.findings.map((finding) => ({
    severity: finding.severity,
    rule: `probe:${finding.check}`,
    judgment: null,
    decision: null,
    key: null,
    problem: `Connection "${report.connection}": ${finding.problem}`,
    fix: finding.fix,
  }));
}

function formatProbe(report: OpenAiProbeReport): string {
  // Without any answer there is nothing to say of what the server sends.
  const unknown = report.answers.length === 0 ? '— (no answer)' : null;
  const yes = (value: boolean) => unknown ?? (value ? 'yes' : 'no');
  const facts: Array<[string, string]> = [
    ['requests sent', String(report.requests)],
    ['logprobs', yes(report.logprobs)],
    ['top_logprobs', `${report.topLogprobs.returned ?? '—'} returned of ${report.topLogprobs.asked} asked`],
    ['token ids', yes(report.tokenIds)],
    [
      'request ids',
      unknown ?? { header: 'x-request-id header', body: "the body's id (no header)", none: 'none' }[report.requestIds],
    ],
    ['model', report.served === null ? `— (pinned ${report.pinned})` : `${report.served} (pinned ${report.pinned})`],
  ];
  const answers = report.answers.map((answer) => [
    `${answer.kind} (${answer.options} ${answer.kind === 'rating' ? 'levels' : 'options'})`,
    answer.read === null ? 'asked again' : answer.read ? 'read' : 'refused',
    `${(answer.coverage * 100).toFixed(1)}%`,
    answer.likeliest
      .map(({ token, p, id }) => `${JSON.stringify(token)}${id === undefined ? '' : `#${id}`} ${p}`)
      .join(', '),
  ]);
  const seen = report.tokens.filter((token) => token.seenAs !== null);
  const lines = [
    bold(`Connection "${report.connection}" (${report.url})`),
    table(['check', 'found'], facts),
    table(['probe question', 'answer', 'coverage', 'likeliest first tokens'], answers),
    `Answer tokens of the registered Questions seen as tokens of their own: ${seen.length} of ${report.tokens.length}` +
      (seen.length === 0
        ? '.'
        : ` (${seen.map(({ token, seenAs }) => (seenAs === 'text' ? token : `${token}#${seenAs}`)).join(', ')}).`),
    '',
  ];
  for (const finding of report.findings) {
    lines.push(`${finding.severity === 'failure' ? 'FAIL' : 'WARN'} [${finding.check}] ${finding.problem}`);
    lines.push(`       Fix: ${finding.fix}`);
  }
  lines.push(`Probed: ${plural(report.failures, 'failure')}, ${plural(report.warnings, 'warning')}.`);
  return lines.join('\n');
}
