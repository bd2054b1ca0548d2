import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { AssessmentRecords } from '../persistence/assessment-records.service';
import { AssessmentRecorder } from '../persistence/assessment.recorder';
import { CliContext } from './cli.context';
import { fail, plural, print, printJson } from './cli.output';

/** `judgment prune [--json]`: deletes the records older than `persistence.retentionDays` and prints how many. */
@Command({ name: 'prune', description: 'Delete assessment records older than persistence.retentionDays' })
export class PruneCommand extends CommandRunner {
  constructor(@Inject(CliContext) private readonly context: CliContext) {
    super();
  }

  async run(_params: string[], options: { json?: boolean } = {}): Promise<void> {
    const json = options.json === true;
    try {
      const days = this.context.get(AssessmentRecorder).persistence.retentionDays;
      const pruned = await this.context.get(AssessmentRecords).prune();
      if (json) printJson({ pruned, retentionDays: days });
      else if (days === null) print('Retention is off (persistence.retentionDays is null): nothing pruned.');
      else print(`Pruned ${plural(pruned, 'record')} created more than ${plural(days, 'day')} ago.`);
    } catch (error) {
      fail(error, json);
    }
  }

  @Option({ flags: '--json', description: 'print only JSON' })
  parseJson(): boolean {
    return true;
  }
}
