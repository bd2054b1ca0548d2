import { ConsoleLogger, Inject, Injectable, Logger } from '@nestjs/common';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';

/** Structured context of a log line: `judgment`, `engine`, `model`, `request_id`, and extras where stated. */
export type LogContext = Record<string, unknown>;

/**
 * The package's log lines (Nest Logger, context `Judgment`), one per event; `log: false` silences them. The line
 * follows the app's logger: Nest's ConsoleLogger printing text (the default) gets one line, the message then the
 * context as flat `key=value` pairs; any other logger (ConsoleLogger with `json: true`, pino, winston...) gets the
 * object `{ message, ...context }` to serialise its own way.
 */
@Injectable()
export class JudgmentLogger {
  private readonly logger = new Logger('Judgment');
  private readonly enabled: boolean;

  constructor(@Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions) {
    this.enabled = options.log;
  }

  /** Logs at level `log`; the line is formatted only when the app's logger prints that level. */
  info(message: string, context: LogContext): void {
    if (this.enabled && Logger.isLevelEnabled('log')) this.logger.log(logEntry(message, context));
  }

  warn(message: string, context: LogContext): void {
    if (this.enabled && Logger.isLevelEnabled('warn')) this.logger.warn(logEntry(message, context));
  }

  /** A warning about the app's configuration or declarations: written even when `log` is false, as an error would be. */
  configurationWarning(message: string, context: LogContext): void {
    this.logger.warn(logEntry(message, context));
  }
}

/** An error as a log context value: its class and message, never its cause chain or request config. */
export function describeError(error: unknown): { type: string; message: string } {
  return error instanceof Error
    ? { type: error.constructor.name, message: error.message }
    : { type: typeof error, message: String(error) };
}

/**
 * One log line in words: the message, then each context value as `key=value` — nested objects flattened with dots
 * (`exception.type=EngineTimeout`), strings quoted as JSON when they hold spaces, quotes or `=`.
 */
export function logLine(message: string, context: LogContext): string {
  const pairs: string[] = [];
  const add = (prefix: string, value: unknown): void => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)) {
      for (const [key, inner] of Object.entries(value)) add(`${prefix}.${key}`, inner);
    } else pairs.push(`${prefix}=${formatValue(value)}`);
  };
  for (const [key, value] of Object.entries(context)) add(key, value);
  return pairs.length === 0 ? message : `${message} ${pairs.join(' ')}`;
}

/**
 * What to hand Nest's Logger for one event: the line of `logLine` when the app logs through Nest's text
 * ConsoleLogger, else the object `{ message, ...context }`. For warnings written whatever `log` says (configuration).
 */
export function logEntry(message: string, context: LogContext): string | LogContext {
  return printsText() ? logLine(message, context) : { message, ...context };
}

/** Whether the app logs through Nest's ConsoleLogger as text (its default), which prints an object over many lines. */
function printsText(): boolean {
  const app = (Logger as unknown as { staticInstanceRef?: unknown }).staticInstanceRef;
  return app instanceof ConsoleLogger && (app as unknown as { options?: { json?: boolean } }).options?.json !== true;
}

function formatValue(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value === undefined) return 'undefined';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
