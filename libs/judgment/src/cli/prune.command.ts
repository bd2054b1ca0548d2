import type { Command } from 'commander';
import { RecordRetention } from '../records/record-retention.service';
import type { CliContext } from './cli.context';
import { fail, plural, print, printJson } from './cli.output';

/** `judgment prune [--json]`: deletes the records older than `persistence.retentionDays` and prints how many. */
export function addPruneCommand(program: Command, context: CliContext): void {
  program
    .command('prune')
    .description('Delete assessment records older than persistence.retentionDays')
    .option('--json', 'print only JSON')
    .action((options: { json?: boolean }) => runPrune(context, options.json === true));
}

async function runPrune(context: CliContext, json: boolean): Promise<void> {
  try {
    await context.start();
    const retention = context.get(RecordRetention);
    const days = retention.retentionDays;
    const pruned = await retention.prune();
    if (json) printJson({ pruned, retentionDays: days });
    else if (days === null) print('Retention is off (persistence.retentionDays is null): nothing pruned.');
    else print(`Pruned ${plural(pruned, 'record')} created more than ${plural(days, 'day')} ago.`);
  } catch (error) {
    fail(error, json);
  }
}
