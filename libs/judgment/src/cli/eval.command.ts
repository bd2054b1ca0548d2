import type { Type } from '@nestjs/common';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { Calibration } from '../calibration/calibration.service';
import { EngineManager } from '../engines/engine.manager';
import { type Decision, decisionMetadata } from '../decision/decision.decorator';
import type { Judgment } from '../definition/judgment.decorator';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { InvalidCalibration } from '../errors';
import type { CliContext } from './cli.context';
import { fail, print, printJson } from './cli.output';
import { formatReport } from './report.format';

/** Options of `judgment eval`. */
export interface EvalOptions {
  dataset?: string;
  decision?: string[];
  engine?: string[];
  concurrency?: number;
  fitTemperature?: boolean;
  json?: boolean;
}

/**
 * `judgment eval <judgment> [--dataset=cases.json] [--decision=…]… [--engine=…]… [--fit-temperature] [--json]`: calibrates a Judgment's
 * Decisions against labelled cases (a dataset, else the recorded Resolutions). Every case is a paid Engine round.
 */
export function addEvalCommand(program: Command, context: CliContext): void {
  program
    .command('eval')
    .description('Measure Decisions against labelled cases (a dataset, or the recorded Resolutions)')
    .argument('<judgment>', 'the Judgment: its registered name or class name')
    .option('--dataset <path>', 'a JSON list of { subject, expected, truth? } cases')
    .option('--decision <name>', 'a Decision to measure (repeatable; default: the Judgment’s)', collect)
    .option('--engine <connection>', 'an Engine connection to ask (repeatable)', collect)
    .option('--concurrency <rounds>', 'Engine rounds in flight at once', (value) =>
      /^\d+$/.test(value) ? Number(value) : NaN,
    )
    .option('--fit-temperature', 'also fit a temperature per connection to the Likelihood truths (openai driver)')
    .option('--json', 'print only the report as JSON')
    .action((name: string, options: EvalOptions) => runEval(context, name, options));
}

async function runEval(context: CliContext, name: string, options: EvalOptions): Promise<void> {
  const json = options.json === true;
  const progress = new Progress(!json && process.stdout.isTTY === true);
  try {
    await context.start();
    const registry = context.get(JudgmentRegistry);
    let builder = context.get(Calibration).for(findJudgment(registry, name));
    if (options.dataset !== undefined) builder = builder.fromDataset(options.dataset);
    if (options.decision?.length)
      builder = builder.decisions(...options.decision.map((d) => findDecision(registry, d)));
    if (options.engine?.length) builder = builder.engines(...options.engine);
    if (options.concurrency !== undefined) builder = builder.concurrency(options.concurrency);
    if (options.fitTemperature === true) builder = builder.fitTemperature();
    const engines = context.get(EngineManager);
    const report = await builder.run({
      onStart: (rounds) => {
        const expected = expectedDuration(engines, rounds);
        if (expected) process.stderr.write(`${expected}\n`);
      },
      onProgress: (done, total) => progress.update(done, total),
    });
    progress.stop();
    if (json) printJson(report);
    else print(formatReport(report));
  } catch (error) {
    progress.stop();
    fail(error, json);
  }
}

/**
 * How long the rounds take at the connections' request limits (calibration uses its bulk share of each window), or
 * null when no connection asked has a request limit.
 */
export function expectedDuration(engines: EngineManager, rounds: ReadonlyMap<string, number>): string | null {
  let seconds = 0;
  const parts: string[] = [];
  for (const [connection, count] of rounds) {
    const limiter = engines.limiter(connection);
    const perMinute = limiter?.limits.requestsPerMinute;
    if (!limiter || !perMinute) continue;
    const bulkPerMinute = Math.max(1, Math.floor(perMinute * limiter.bulkShare));
    const duration = Math.ceil((count * 60) / bulkPerMinute);
    seconds = Math.max(seconds, duration);
    parts.push(`${count} rounds on "${connection}" at ${bulkPerMinute}/min (its bulk share of ${perMinute}/min)`);
  }
  if (parts.length === 0) return null;
  return `Expected duration at the rate limits: about ${formatSeconds(seconds)} (${parts.join('; ')}).`;
}

function formatSeconds(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${seconds % 60} s`;
}

/** Collects a repeatable option's values. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A progress bar of Engine rounds, shown only on a terminal. */
class Progress {
  private bar: SingleBar | null = null;

  constructor(private readonly enabled: boolean) {}

  update(done: number, total: number): void {
    if (!this.enabled) return;
    if (!this.bar) {
      this.bar = new SingleBar(
        { format: 'Asking [{bar}] {value}/{total} Engine rounds', clearOnComplete: true, hideCursor: true },
        Presets.shades_classic,
      );
      this.bar.start(total, 0);
    }
    this.bar.update(done);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}

/** A registered Judgment by registered name, else by class name. */
function findJudgment(registry: JudgmentRegistry, name: string): Type<Judgment> {
  if (registry.hasJudgment(name)) return registry.judgment(name);
  const found = registry.judgments().find((cls) => cls.name === name);
  if (found) return found;
  const known = registry.judgments().map((cls) => cls.name);
  throw new InvalidCalibration(
    `${name} is not a Judgment: no registered Judgment has that name or class name (registered: ` +
      `${known.join(', ') || 'none'}). Add it to JudgmentModule.forFeature([...]).`,
  );
}

/** A registered Decision by registered name, else by class name. */
function findDecision(registry: JudgmentRegistry, name: string): Type<Decision> {
  const found = registry.decisions().find((cls) => decisionMetadata(cls).name === name || cls.name === name);
  if (found) return found;
  const known = registry.decisions().map((cls) => decisionMetadata(cls).name);
  throw new InvalidCalibration(
    `${name} is not a Decision: no registered Decision has that name or class name (registered: ` +
      `${known.join(', ') || 'none'}). Add it to JudgmentModule.forFeature([...]).`,
  );
}
