import type { LoggerService } from '@nestjs/common';
import Table from 'cli-table3';
import { CliUsageError } from './cli.errors';

/** Writes a line to stdout. */
export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Writes a value as the only JSON document on stdout. */
export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}

/**
 * Reports a failed command and sets exit status 1 (2 for a usage error): `{"error": "..."}` on stdout in JSON mode,
 * otherwise one line on stderr.
 */
export function fail(error: unknown, json: boolean): void {
  const message = error instanceof Error ? error.message : String(error);
  if (json) printJson({ error: message });
  else process.stderr.write(`Error: ${message}\n`);
  process.exitCode = error instanceof CliUsageError ? 2 : 1;
}

/**
 * A plain table (no colours, so output stays readable when piped). Columns are as wide as their content; `widths`
 * caps some (their text wraps past the cap).
 */
export function table(head: string[], rows: Array<Array<string | number>>, widths: Array<number | null> = []): string {
  const cells = rows.map((row) => row.map(String));
  // cli-table3 takes a given width as the column's width: a cap is the content's width (+ 2 for padding) up to it.
  const colWidths = widths.map((cap, column) => {
    if (cap === null) return null;
    const longest = Math.max(head[column]?.length ?? 0, ...cells.map((row) => (row[column] ?? '').length));
    return Math.min(cap, longest + 2);
  });
  const result = new Table({ head, style: { head: [], border: [] }, wordWrap: true, colWidths });
  result.push(...cells);
  return result.toString();
}

/** How a result's language reads: the language, or `any language` when the Judgment declares none. */
export function languageLabel(language: string | null): string {
  return language ?? 'any language';
}

/** Bold on a terminal, plain otherwise. */
export function bold(text: string): string {
  return process.stdout.isTTY ? `\u001b[1m${text}\u001b[22m` : text;
}

/** A share as a percentage with one decimal (`66.7%`), `—` for null. */
export function percent(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)}%`;
}

/** `1 Resolution` / `2 Resolutions`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * The Nest logger of a CLI run: warnings and errors on stderr, nothing else, so stdout holds only the command's
 * output (and nothing but JSON with `--json`).
 */
export class StderrLogger implements LoggerService {
  log(): void {}

  warn(message: unknown, context?: string): void {
    this.write('WARN', message, context);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.write(
      'ERROR',
      message,
      typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined,
    );
  }

  private write(level: string, message: unknown, context?: string): void {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    process.stderr.write(`${level}${context ? ` [${context}]` : ''} ${text}\n`);
  }
}
