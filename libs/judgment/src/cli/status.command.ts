import type { Command } from 'commander';
import { EngineManager } from '../engines/engine.manager';
import { JUDGMENT_MODULE_OPTIONS } from '../judgment.constants';
import type { JudgmentModuleOptions } from '../judgment.options';
import type { CliContext } from './cli.context';
import { fail, print, printJson, table } from './cli.output';

/** One connection as `status` shows it: configuration only, the key's presence but never the key. */
export interface ConnectionReport {
  readonly connection: string;
  readonly default: boolean;
  readonly driver: string | null;
  readonly keyPresent: boolean;
  readonly model: string | null;
  readonly pinned: boolean;
  readonly url: string | null;
  /** Seconds per attempt. */
  readonly timeout: number | null;
  readonly retries: number | null;
  readonly maxLabels: number | null;
  readonly budget: number | null;
  /** Input tokens spent by this process (0 in a fresh CLI process). */
  readonly used: number;
  readonly configured: boolean;
  readonly problem: string | null;
}

/** What `status --json` prints. */
export interface StatusReport {
  /** The default connection's name (null when none is set). */
  readonly default: string | null;
  /** Whether the default connection is configured (the exit status is 0 exactly then). */
  readonly configured: boolean;
  readonly connections: readonly ConnectionReport[];
}

/**
 * `judgment status [--json]`: each Engine connection's driver, key presence, model (pinned or alias), URL, timeout,
 * retries and budget, read from the configuration without any network call. Exit 0 when the default connection is
 * configured, 1 when not.
 */
export function addStatusCommand(program: Command, context: CliContext): void {
  program
    .command('status')
    .description('Show the Engine connections and whether the default one is configured')
    .option('--json', 'print only JSON')
    .action((options: { json?: boolean }) => runStatus(context, options.json === true));
}

async function runStatus(context: CliContext, json: boolean): Promise<void> {
  try {
    await context.start();
    const report = statusReport(
      context.get(EngineManager),
      context.get<JudgmentModuleOptions>(JUDGMENT_MODULE_OPTIONS),
    );
    if (json) printJson(report);
    else print(formatStatus(report));
    process.exitCode = report.configured ? 0 : 1;
  } catch (error) {
    fail(error, json);
  }
}

/** The status of the default connection and of every configured connection. */
export function statusReport(engines: EngineManager, options: JudgmentModuleOptions): StatusReport {
  let defaultName: string | null = null;
  let defaultProblem: string | null = null;
  try {
    defaultName = engines.defaultConnectionName();
  } catch (error) {
    defaultProblem = (error as Error).message;
  }
  const names = [...new Set([...(defaultName ? [defaultName] : []), ...Object.keys(options.engines ?? {})])];
  const connections = names.map((name) => describeConnection(engines, name, name === defaultName));
  const configured = connections.some((connection) => connection.default && connection.configured);
  return {
    default: defaultName,
    configured,
    connections: defaultProblem ? [unconfigured('(default)', true, defaultProblem), ...connections] : connections,
  };
}

function describeConnection(engines: EngineManager, name: string, isDefault: boolean): ConnectionReport {
  try {
    const status = engines.describe(name);
    return {
      connection: name,
      default: isDefault,
      driver: status.driver,
      keyPresent: status.keyPresent,
      model: status.model,
      pinned: status.pinned,
      url: status.url,
      timeout: status.timeout,
      retries: status.retries,
      maxLabels: status.maxLabels,
      budget: status.budget,
      used: status.used,
      configured: status.configured,
      problem: status.problem,
    };
  } catch (error) {
    return unconfigured(name, isDefault, (error as Error).message);
  }
}

function unconfigured(connection: string, isDefault: boolean, problem: string): ConnectionReport {
  return {
    connection,
    default: isDefault,
    driver: null,
    keyPresent: false,
    model: null,
    pinned: false,
    url: null,
    timeout: null,
    retries: null,
    maxLabels: null,
    budget: null,
    used: 0,
    configured: false,
    problem,
  };
}

function formatStatus(report: StatusReport): string {
  const rows = report.connections.map((c) => [
    c.default ? `${c.connection} (default)` : c.connection,
    c.driver ?? '—',
    c.keyPresent ? 'present' : 'none',
    c.model === null ? '—' : `${c.model} (${c.pinned ? 'pinned' : 'alias'})`,
    c.url ?? '—',
    c.timeout === null ? '—' : `${c.timeout} s`,
    c.retries ?? '—',
    c.budget === null ? 'no limit' : `${c.budget} tokens`,
    `${c.used} tokens`,
    c.configured ? 'ok' : (c.problem ?? 'not configured'),
  ]);
  const verdict = report.configured
    ? `The default connection "${report.default}" is configured.`
    : `The default connection${report.default ? ` "${report.default}"` : ''} is not configured.`;
  return [
    table(['Connection', 'Driver', 'Key', 'Model', 'URL', 'Timeout', 'Retries', 'Budget', 'Used', 'Status'], rows, [
      ...Array<null>(9).fill(null),
      48,
    ]),
    verdict,
  ].join('\n');
}
