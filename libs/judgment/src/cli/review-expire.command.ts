import type { Command } from 'commander';
import { ReviewDeadlines } from '../review/review-deadlines.service';
import type { CliContext } from './cli.context';
import { fail, plural, print, printJson } from './cli.output';

/**
 * `judgment review:expire [--json]`: resolves every record in Review past its Decision's deadline with the
 * Decision's `onExpiry` Outcome (as the system, reason `deadline`), and prints how many. For apps that run the sweep
 * from a scheduler (cron) instead of the app's interval or the queue.
 */
export function addReviewExpireCommand(program: Command, context: CliContext): void {
  program
    .command('review:expire')
    .description("Resolve the Reviews past their Decision's deadline with its onExpiry Outcome")
    .option('--json', 'print only JSON')
    .action((options: { json?: boolean }) => runReviewExpire(context, options.json === true));
}

async function runReviewExpire(context: CliContext, json: boolean): Promise<void> {
  try {
    await context.start();
    const expired = await context.get(ReviewDeadlines).expireDue();
    if (json) printJson({ expired });
    else print(`Expired ${plural(expired, 'Review')} past the deadline (resolved with their onExpiry Outcome).`);
  } catch (error) {
    fail(error, json);
  }
}
