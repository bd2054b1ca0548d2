import { Inject, Injectable, Logger } from '@nestjs/common';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';

/** Structured context of a log line: `judgment`, `engine`, `model`, `request_id`, and extras where stated. */
export type LogContext = Record<string, unknown>;

/** The package's log lines (Nest Logger, context `Judgment`); `log: false` silences them. */
@Injectable()
export class JudgmentLogger {
  private readonly logger = new Logger('Judgment');
  private readonly enabled: boolean;

  constructor(@Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions) {
    this.enabled = options.log;
  }

  info(message: string, context: LogContext): void {
    if (this.enabled) this.logger.log({ message, ...context });
  }

  warn(message: string, context: LogContext): void {
    if (this.enabled) this.logger.warn({ message, ...context });
  }
}

/** An error as a log context value: its class and message, never its cause chain or request config. */
export function describeError(error: unknown): { type: string; message: string } {
  return error instanceof Error
    ? { type: error.constructor.name, message: error.message }
    : { type: typeof error, message: String(error) };
}
