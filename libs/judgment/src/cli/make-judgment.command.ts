import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { fail, print } from './cli.output';
import { checkClassName, findExport, judgmentSource, kebabCase, sourceRoot, writeGenerated } from './generators';

/** Options of `judgment make:judgment`. */
export interface MakeJudgmentOptions {
  subject?: string;
  dir?: string;
  force?: boolean;
}

/**
 * `judgment make:judgment <Name> [--subject=Refund] [--dir=src/judgments] [--force]`: writes a Judgment class
 * constructed with its Subject (imported from the one file under the source root that exports it), with no Evidence
 * and no Questions yet.
 */
export function addMakeJudgmentCommand(program: Command): void {
  program
    .command('make:judgment')
    .description('Write a new Judgment class')
    .argument('<name>', 'the class name, e.g. RefundAbuse')
    .option('--subject <class>', 'the entity the Judgment is constructed with, e.g. Refund')
    .option('--dir <path>', 'the folder to write to (default src/judgments)')
    .option('--force', 'overwrite an existing file')
    .action((name: string, options: MakeJudgmentOptions) => makeJudgment(name, options));
}

function makeJudgment(name: string, options: MakeJudgmentOptions): void {
  try {
    const className = checkClassName(name, 'The Judgment name');
    const dir = options.dir ?? 'src/judgments';
    const subject =
      options.subject === undefined
        ? null
        : findExport(sourceRoot(dir), checkClassName(options.subject, 'The Subject'), 'class');
    const path = join(dir, `${kebabCase(className.replace(/(.)Judgment$/, '$1'))}.judgment.ts`);
    writeGenerated(path, judgmentSource(className, dir, subject), options.force === true);
    print(`Created ${relative(process.cwd(), path)}`);
  } catch (error) {
    fail(error, false);
  }
}
