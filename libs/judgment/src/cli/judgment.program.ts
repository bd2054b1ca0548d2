import { Command, CommanderError } from 'commander';
import type { CliContext } from './cli.context';
import { addAuditCommand } from './audit.command';
import { addCheckCommand } from './check.command';
import { addEvalCommand } from './eval.command';
import { addExplainCommand } from './explain.command';
import { addMakeDecisionCommand } from './make-decision.command';
import { addMakeJudgmentCommand } from './make-judgment.command';
import { addProbeCommand } from './probe.command';
import { addPruneCommand } from './prune.command';
import { addReviewExpireCommand } from './review-expire.command';
import { addStatusCommand } from './status.command';

/**
 * The `judgment` commands (`eval`, `audit`, `status`, `check`, `probe`, `explain`, `make:judgment`, `make:decision`,
 * `prune`, `review:expire`) as a commander program. The commands that need the app boot it through `context`; the generators
 * never do.
 */
export function judgmentProgram(context: CliContext): Command {
  // exitOverride before the commands are added, so they inherit it: a usage error ends in runProgram, not process.exit.
  const program = new Command('judgment')
    .description('Calibrate, inspect and scaffold the Judgments of a Nest app')
    .exitOverride();
  addEvalCommand(program, context);
  addAuditCommand(program, context);
  addStatusCommand(program, context);
  addCheckCommand(program, context);
  addProbeCommand(program, context);
  addExplainCommand(program, context);
  addMakeJudgmentCommand(program);
  addMakeDecisionCommand(program);
  addPruneCommand(program, context);
  addReviewExpireCommand(program, context);
  return program;
}

/**
 * Runs `program` on `argv`, then closes the app the commands booted. Resolves to the exit status (also set as
 * `process.exitCode`): the command's own, 2 for a usage error (commander's already printed it), 0 after `--help`.
 */
export async function runProgram(program: Command, context: CliContext, argv = process.argv): Promise<number> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } finally {
    await context.close();
  }
  const status = Number(process.exitCode ?? 0);
  // An app that failed to start could not be closed (its connections and timers live on): end the process here.
  if (context.failedToStart) process.exit(status);
  return status;
}
