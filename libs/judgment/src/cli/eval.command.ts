import type { Type } from '@nestjs/common';
import { Presets, SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError } from 'commander';
import { reportHtml } from './report.html';
import { prepareHtml, shownPath, writeHtml } from './html-file';
import { lockCalibration } from '../calibration/calibration-lock.update';
import type { CalibrationReport } from '../calibration/calibration.report';
import { CalibrationLock } from '../lock/calibration-lock';
import { CliUsageError } from './cli.errors';
import { formatSuggestion } from './suggestion.format';
import { formatCascadeSuggestion } from './cascade-suggestion.format';
import { DEFAULT_MIN_BAND } from '../calibration/threshold-suggestion';
import { TRAFFIC_WINDOW_DAYS } from '../calibration/recorded-traffic';
import { Calibration } from '../calibration/calibration.service';
import { EngineManager } from '../engines/engine.manager';
import { type Decision, decisionMetadata } from '../decision/decision.decorator';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import { JudgmentRegistry } from '../registry/judgment.registry';
import type { CliContext } from './cli.context';
import { fail, print, printJson } from './cli.output';
import { formatReport, formatResolutionTemperatures, temperatureCaution } from './report.format';

/** Options of `judgment eval`. */
export interface EvalOptions {
  dataset?: string;
  decision?: string[];
  engine?: string[];
  concurrency?: number;
  fitTemperature?: boolean;
  fromResolutions?: boolean;
  json?: boolean;
  suggest?: boolean;
  maxError?: number;
  confidence?: number;
  maxReview?: number;
  maxReviewsPerDay?: number;
  minBand?: number;
  /** On a cascade: what the tiers' thresholds minimise, `cost` (default) or `review`. */
  objective?: 'cost' | 'review';
  /** Review bands, each `lower:upper` (two threshold names). */
  band?: string[];
  /** `true` for the default lock file, or its path. */
  lock?: boolean | string;
  html?: string;
}

/** The lock file `--lock` writes when given no path. */
export const DEFAULT_LOCK_FILE = 'judgment.lock.json';

/**
 * `judgment eval <judgment> [--dataset=cases.json] [--decision=…]… [--engine=…]… [--fit-temperature] [--json]`: calibrates a Judgment's
 * Decisions against labelled cases (a dataset, else the recorded Resolutions). Every case is a paid Engine round.
 * `--suggest --max-error 0.05 --confidence 0.95 [--max-review 0.4] [--min-band 0.1] [--band hold:block]…` also
 * searches thresholds over the same answers, keeping each Review band open (exit 1 when none meets the target); `--lock [path]` writes the figures to the calibration lock.
 * On a Judgment with an escalation cascade every tier is asked each case once, `--suggest` chooses every tier's
 * thresholds together (lowest cost per decision, or `--objective review`), and `--lock` records every tier.
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
    .option(
      '--from-resolutions',
      'with --fit-temperature: refit from the resolved Reviews and audits in the records, per identity (no Engine call)',
    )
    .option('--json', 'print only the report as JSON')
    .option('--suggest', 'suggest thresholds with a finite-sample guarantee (no further Engine call)')
    .option('--max-error <share>', 'with --suggest: largest error rate of automatic Outcomes, in (0, 1)', share)
    .option('--confidence <share>', 'with --suggest: probability the error stays within --max-error', share)
    .option('--max-review <share>', 'with --suggest: largest review rate, in (0, 1]', share)
    .option(
      '--max-reviews-per-day <cases>',
      `with --suggest: cases Review can take a day, checked at the recorded traffic (last ${TRAFFIC_WINDOW_DAYS} days)`,
      reviewsPerDay,
    )
    .option(
      '--min-band <width>',
      `with --suggest: least width kept between the thresholds of a Review band, in (0, 1) (default ${DEFAULT_MIN_BAND})`,
      share,
    )
    .option(
      '--objective <cost|review>',
      'with --suggest on a cascade: minimise the cost per decision (default; every tier needs a price) or the reviews',
    )
    .option(
      '--band <lower:upper>',
      'with --suggest: a Review band between two thresholds (repeatable; default: the bands the current ones hold)',
      collect,
    )
    .option('--html <path>', 'also write the report (and suggestions) as one self-contained HTML page')
    .option('--lock [path]', `write the figures to the calibration lock (default ${DEFAULT_LOCK_FILE})`)
    .action((name: string, options: EvalOptions) => runEval(context, name, options));
}

async function runEval(context: CliContext, name: string, options: EvalOptions): Promise<void> {
  const json = options.json === true;
  const progress = new Progress(!json && process.stdout.isTTY === true);
  try {
    if (options.fromResolutions) {
      await refitFromResolutions(context, name, options);
      return;
    }
    const html = prepareHtml(options.html);
    await context.start();
    const registry = context.get(JudgmentRegistry);
    let builder = context.get(Calibration).for(findJudgment(context, name));
    if (options.dataset !== undefined) builder = builder.fromDataset(options.dataset);
    if (options.decision?.length)
      builder = builder.decisions(...options.decision.map((d) => findDecision(registry, d)));
    if (options.engine?.length) builder = builder.engines(...options.engine);
    if (options.concurrency !== undefined) builder = builder.concurrency(options.concurrency);
    if (options.fitTemperature === true) builder = builder.fitTemperature();
    const engines = context.get(EngineManager);
    const run = {
      onStart: (rounds: ReadonlyMap<string, number>) => {
        const expected = expectedDuration(engines, rounds);
        if (expected) process.stderr.write(`${expected}\n`);
      },
      onProgress: (done: number, total: number) => progress.update(done, total),
    };
    if (options.objective !== undefined && !options.suggest) {
      throw new CliUsageError('--objective goes with --suggest: add --suggest --max-error … --confidence ….');
    }
    if (options.maxReviewsPerDay !== undefined && !options.suggest) {
      throw new CliUsageError('--max-reviews-per-day goes with --suggest: add --suggest --max-error … --confidence ….');
    }
    if (options.suggest) {
      if (options.maxError === undefined || options.confidence === undefined) {
        throw new CliUsageError('--suggest needs --max-error <share> and --confidence <share>, e.g. 0.05 and 0.95.');
      }
      const suggestion = await builder.suggest(
        {
          maxError: options.maxError,
          confidence: options.confidence,
          ...(options.maxReview === undefined ? {} : { maxReviewRate: options.maxReview }),
          ...(options.maxReviewsPerDay === undefined ? {} : { maxReviewsPerDay: options.maxReviewsPerDay }),
          ...(options.minBand === undefined ? {} : { minBand: options.minBand }),
          ...(options.objective === undefined ? {} : { objective: options.objective }),
          ...(options.band === undefined ? {} : { reviewBands: options.band.map(bandOption) }),
        },
        run,
      );
      progress.stop();
      const lock = writeLock(options.lock, suggestion.report);
      writeHtml(html, reportHtml(suggestion.report, suggestion));
      if (json) printJson({ ...suggestion.toJSON(), ...(lock ? { lock } : {}) });
      else {
        const text = suggestion.cascade ? formatCascadeSuggestion(suggestion.cascade) : formatSuggestion(suggestion);
        print([text, ...(lock ? [`Wrote the calibration lock ${lock}.`] : [])].join('\n\n'));
      }
      if (!suggestion.met) process.exitCode = 1;
      return;
    }
    const report = await builder.run(run);
    progress.stop();
    const lock = writeLock(options.lock, report);
    writeHtml(html, reportHtml(report));
    if (json) printJson(lock ? { ...report.toJSON(), lock } : report);
    else print([formatReport(report), ...(lock ? [`Wrote the calibration lock ${lock}.`] : [])].join('\n\n'));
  } catch (error) {
    progress.stop();
    fail(error, json);
  }
}

/**
 * `--fit-temperature --from-resolutions`: the temperature per identity refitted from the resolved Reviews and audits
 * (no Engine call), each with the small-sample caution of `--fit-temperature`.
 */
async function refitFromResolutions(context: CliContext, name: string, options: EvalOptions): Promise<void> {
  if (!options.fitTemperature) {
    throw new CliUsageError('--from-resolutions goes with --fit-temperature: add --fit-temperature.');
  }
  const other = (['dataset', 'suggest', 'lock', 'html', 'engine', 'decision'] as const).filter(
    (option) => options[option] !== undefined && options[option] !== false,
  );
  if (other.length > 0) {
    throw new CliUsageError(
      `--from-resolutions reads the records and asks no Engine, so it takes no ${other.map((o) => `--${o}`).join(', ')}.`,
    );
  }
  await context.start();
  const found = await context.get(Calibration).for(findJudgment(context, name)).fitTemperatureFromResolutions();
  if (options.json === true) {
    printJson({
      ...found,
      fits: found.fits.map((fit) => ({ ...fit, caution: temperatureCaution(fit) })),
    });
    return;
  }
  print(formatResolutionTemperatures(name, found));
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

/**
 * Writes the run's figures to the lock when `--lock` was given; returns its path relative to the current folder.
 * Nothing is written on failure.
 */
function writeLock(option: boolean | string | undefined, report: CalibrationReport): string | null {
  if (option === undefined || option === false) return null;
  const path = shownPath(option === true ? DEFAULT_LOCK_FILE : option);
  lockCalibration(CalibrationLock.readOrEmpty(path), report).write();
  return path;
}

/** A share option: a number; the library says what range it must be in. */
function share(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) {
    throw new InvalidArgumentError(`expected a number such as 0.05; got ${JSON.stringify(value)}.`);
  }
  return number;
}

/** `--max-reviews-per-day`: a number of cases above 0. */
function reviewsPerDay(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || !(number > 0)) {
    throw new InvalidArgumentError(
      `expected the cases Review can take a day, a number above 0 such as 40; got ${JSON.stringify(value)}.`,
    );
  }
  return number;
}

/** A `--band lower:upper` value as the pair of threshold names. */
function bandOption(value: string): [string, string] {
  const names = value.split(':').map((name) => name.trim());
  if (names.length !== 2 || names.some((name) => name === '')) {
    throw new CliUsageError(
      `--band takes two threshold names, lower:upper (e.g. hold:block); got ${JSON.stringify(value)}.`,
    );
  }
  return [names[0], names[1]];
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

/**
 * A registered Judgment of the app by registered name, else by class name. An unknown one is a usage error (exit 2)
 * listing the registered names, which are what the command takes.
 */
export function findJudgment(context: CliContext, name: string): Type<Judgment> {
  const registry = context.get(JudgmentRegistry);
  if (registry.hasJudgment(name)) return registry.judgment(name);
  const found = registry.judgments().find((cls) => cls.name === name);
  if (found) return found;
  throw unknownName(
    'Judgment',
    name,
    registry.judgments().map((cls) => judgmentName(cls)),
  );
}

/** A registered Decision by registered name, else by class name; an unknown one is a usage error (exit 2). */
function findDecision(registry: JudgmentRegistry, name: string): Type<Decision> {
  const found = registry.decisions().find((cls) => decisionMetadata(cls).name === name || cls.name === name);
  if (found) return found;
  throw unknownName(
    'Decision',
    name,
    registry.decisions().map((cls) => decisionMetadata(cls).name),
  );
}

function unknownName(kind: string, name: string, registered: string[]): CliUsageError {
  return new CliUsageError(
    `No ${kind} is registered under the name "${name}". Registered: ${registered.sort().join(', ') || 'none'}. ` +
      'Name one of them, or add yours to JudgmentModule.forFeature([...]).',
  );
}
