import type { LoggerService } from '@nestjs/common';
import { type AppModule, CliContext } from './cli.context';
import { StderrLogger } from './cli.output';
import { judgmentProgram, runProgram } from './judgment.program';

/** Options of `runJudgmentCli()`. */
export interface JudgmentCliOptions {
  /** The Nest logger while a command runs (default: warnings and errors on stderr, so stdout holds only output). */
  logger?: LoggerService;
}

/**
 * Runs the `judgment` command line over the app's root module, for an app that prefers a script of its own to the
 * `judgment` bin: `void runJudgmentCli(AppModule)` in `cli.ts`. Resolves to the exit status (also set as
 * `process.exitCode`). The app boots as a Nest application context without the library's queue workers. When it
 * cannot start because an Engine connection is misconfigured, `status` still reports every connection (exit 1) and
 * the other commands print the configuration error.
 */
export function runJudgmentCli(rootModule: AppModule, options: JudgmentCliOptions = {}): Promise<number> {
  const context = new CliContext(() => rootModule, options.logger ?? new StderrLogger());
  return runProgram(judgmentProgram(context), context);
}
