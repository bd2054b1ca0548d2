import { join, relative } from 'node:path';
import { Command, CommandRunner, Option } from 'nest-commander';
import { fail, print } from './cli.output';
import { GeneratorError } from '../errors';
import { checkClassName, decisionSource, findExport, kebabCase, sourceRoot, writeGenerated } from './generators';

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
@Command({
  name: 'make:decision',
  arguments: '<name>',
  description: 'Write a new Decision class (uncalibrated: it throws until you calibrate it)',
  argsDescription: { name: 'the class name, e.g. RefundDecision' },
})
export class MakeDecisionCommand extends CommandRunner {
  async run([name]: string[], options: MakeDecisionOptions = {}): Promise<void> {
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

  @Option({ flags: '--judgment <class>', description: 'the Judgment it decides, e.g. RefundAbuse' })
  parseJudgment(value: string): string {
    return value;
  }

  @Option({ flags: '--outcome <enum>', description: 'the Outcome enum it returns, e.g. RefundOutcome' })
  parseOutcome(value: string): string {
    return value;
  }

  @Option({ flags: '--dir <path>', description: 'the folder to write to (default src/decisions)' })
  parseDir(value: string): string {
    return value;
  }

  @Option({ flags: '--force', description: 'overwrite an existing file' })
  parseForce(): boolean {
    return true;
  }
}
