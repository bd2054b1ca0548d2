import { type DynamicModule, type LoggerService, Module, type Type } from '@nestjs/common';
import { CommandFactory } from 'nest-commander';
import { CliContext, CliContextAttacher } from './cli.context';
import { StderrLogger, argvWantsJson, fail } from './cli.output';
import { EvalCommand } from './eval.command';
import { MakeDecisionCommand } from './make-decision.command';
import { MakeJudgmentCommand } from './make-judgment.command';
import { PruneCommand } from './prune.command';
import { StatusCommand } from './status.command';

/** The `judgment` commands. */
export const JUDGMENT_COMMANDS = [EvalCommand, StatusCommand, MakeJudgmentCommand, MakeDecisionCommand, PruneCommand];

/**
 * The `judgment` commands (nest-commander) for an app's own CLI: `eval`, `status`, `make:judgment`,
 * `make:decision`, `prune`. `runJudgmentCli(AppModule)` uses it; import `JudgmentCommandModule.register()` next to
 * your own commands when you run nest-commander yourself.
 */
@Module({})
export class JudgmentCommandModule {
  /** The commands, finding the app's services through `context` (a fresh one by default). */
  static register(context: CliContext = new CliContext()): DynamicModule {
    return {
      module: JudgmentCommandModule,
      providers: [{ provide: CliContext, useValue: context }, CliContextAttacher, ...JUDGMENT_COMMANDS],
    };
  }
}

/** The root of a CLI run: the app module and the commands. */
@Module({})
class JudgmentCliModule {}

/** Options of `runJudgmentCli()`. */
export interface JudgmentCliOptions {
  /** The Nest logger while a command runs (default: warnings and errors on stderr, so stdout holds only output). */
  logger?: LoggerService;
}

/**
 * Runs the `judgment` command line over the app's root module: call it from the app's `cli.ts`,
 * `void runJudgmentCli(AppModule)`. Resolves to the exit status (also set as `process.exitCode`). When the app cannot
 * start because an Engine connection is misconfigured, `status` still reports every connection (exit 1) and the
 * other commands print the configuration error.
 */
export async function runJudgmentCli(
  rootModule: Type<unknown> | DynamicModule,
  options: JudgmentCliOptions = {},
): Promise<number> {
  const context = new CliContext();
  const run = (imports: Array<Type<unknown> | DynamicModule>) =>
    CommandFactory.run(
      { module: JudgmentCliModule, imports },
      { logger: options.logger ?? new StderrLogger(), cliName: 'judgment', abortOnError: false },
    );
  try {
    await run([rootModule, JudgmentCommandModule.register(context)]);
  } catch (error) {
    if (!context.recover(error)) {
      fail(error, argvWantsJson());
      return 1;
    }
    // The failed app could not be closed: release what it opened, then end the process once the command is done.
    try {
      await run([JudgmentCommandModule.register(context)]);
    } finally {
      await context.close();
    }
    const status = Number(process.exitCode ?? 0);
    process.exit(status);
  }
  return Number(process.exitCode ?? 0);
}
