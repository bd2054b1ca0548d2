import { join, relative } from 'node:path';
import { Command, CommandRunner, Option } from 'nest-commander';
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
@Command({
  name: 'make:judgment',
  arguments: '<name>',
  description: 'Write a new Judgment class',
  argsDescription: { name: 'the class name, e.g. RefundAbuse' },
})
export class MakeJudgmentCommand extends CommandRunner {
  async run([name]: string[], options: MakeJudgmentOptions = {}): Promise<void> {
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

  @Option({ flags: '--subject <class>', description: 'the entity the Judgment is constructed with, e.g. Refund' })
  parseSubject(value: string): string {
    return value;
  }

  @Option({ flags: '--dir <path>', description: 'the folder to write to (default src/judgments)' })
  parseDir(value: string): string {
    return value;
  }

  @Option({ flags: '--force', description: 'overwrite an existing file' })
  parseForce(): boolean {
    return true;
  }
}
