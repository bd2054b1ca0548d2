import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { fail, print } from './cli.output';
import {
  GeneratorError,
  checkClassName,
  decisionSource,
  findExport,
  kebabCase,
  sourceRoot,
  writeGenerated,
} from './generators';

/** Options of `judgment make:decision`. */
export interface MakeDecisionOptions {
  judgment?: string;
  outcome?: string;
  dir?: string;
  force?: boolean;
}

/**
 * `judgment make:decision <Name> --judgment=RefundAbuse --outcome=RefundOutcome [--dir=src/decisions] [--force]`:
 * writes a Decision with no numbers in it that throws until it is calibrated.
 */
export function addMakeDecisionCommand(program: Command): void {
  program
    .command('make:decision')
    .description('Write a new Decision class (uncalibrated: it throws until you calibrate it)')
    .argument('<name>', 'the class name, e.g. RefundDecision')
    .option('--judgment <class>', 'the Judgment it decides, e.g. RefundAbuse')
    .option('--outcome <enum>', 'the Outcome enum it returns, e.g. RefundOutcome')
    .option('--dir <path>', 'the folder to write to (default src/decisions)')
    .option('--force', 'overwrite an existing file')
    .action((name: string, options: MakeDecisionOptions) => makeDecision(name, options));
}

function makeDecision(name: string, options: MakeDecisionOptions): void {
  try {
    const className = checkClassName(name, 'The Decision name');
    if (options.judgment === undefined || options.outcome === undefined) {
      throw new GeneratorError(
        'make:decision needs the Judgment it decides and the Outcome enum it returns: ' +
          `--judgment=RefundAbuse --outcome=RefundOutcome.`,
      );
    }
    const dir = options.dir ?? 'src/decisions';
    const root = sourceRoot(dir);
    const judgment = findExport(root, checkClassName(options.judgment, 'The Judgment'), 'class');
    const outcome = findExport(root, checkClassName(options.outcome, 'The Outcome enum'), 'enum');
    const path = join(dir, `${kebabCase(className.replace(/(.)Decision$/, '$1'))}.decision.ts`);
    writeGenerated(path, decisionSource(className, dir, judgment, outcome), options.force === true);
    print(`Created ${relative(process.cwd(), path)}`);
  } catch (error) {
    fail(error, false);
  }
}
