import { EngineNotConfigured } from '../errors';
import type { EngineConnectionOptions } from '../judgment.options';
import { MAX_LABELS } from '../questions/classification';
import { DEFAULT_MAX_RESPONSE_BYTES } from './http/request-limits';

/** Seconds one attempt may take when a connection sets no `timeout`. */
export const DEFAULT_TIMEOUT_SECONDS = 10;
/** Retries of 429/529 answers when a connection sets no `retries`. */
export const DEFAULT_RETRIES = 3;

/** A connection's numeric options, checked and defaulted. */
export interface ConnectionSettings {
  /** Seconds per attempt. */
  readonly timeout: number;
  /** Retries of 429/529 answers. */
  readonly retries: number;
  /** Most options a Classification may offer on this connection; null for the package limit. */
  readonly maxLabels: number | null;
  /** Input tokens this process may spend on the connection; null for no limit. */
  readonly budget: number | null;
  /** Largest response body read, in bytes. */
  readonly maxResponseBytes: number;
}

/** What a numeric connection option must be. */
export interface NumberRule {
  readonly integer: boolean;
  readonly min: number;
  readonly aboveMin?: boolean;
  readonly max?: number;
  readonly expected: string;
}

const RULES = {
  timeout: { integer: false, min: 0, aboveMin: true, expected: 'a number of seconds above 0' },
  retries: { integer: true, min: 0, expected: 'an integer of 0 or more' },
  maxLabels: {
    integer: true,
    min: 2,
    expected: `an integer of 2 or more, or to null for the package limit of ${MAX_LABELS}`,
  },
  budget: { integer: true, min: 0, expected: 'an integer number of input tokens (0 or more), or to null for no limit' },
  maxResponseBytes: { integer: true, min: 1024, expected: 'an integer number of bytes of 1024 or more' },
} satisfies Record<keyof ConnectionSettings, NumberRule>;

/**
 * Reads a connection's numeric options (numbers, or plain decimal strings as configuration services deliver them).
 * Throws EngineNotConfigured naming the connection and the option when one is invalid.
 */
export function connectionSettings(name: string, config: EngineConnectionOptions): ConnectionSettings {
  return {
    timeout: setting(name, config, 'timeout') ?? DEFAULT_TIMEOUT_SECONDS,
    retries: setting(name, config, 'retries') ?? DEFAULT_RETRIES,
    maxLabels: setting(name, config, 'maxLabels'),
    budget: setting(name, config, 'budget'),
    maxResponseBytes: setting(name, config, 'maxResponseBytes') ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
}

function setting(name: string, config: EngineConnectionOptions, option: keyof ConnectionSettings): number | null {
  return connectionNumber(name, config, option, RULES[option]);
}

/**
 * A numeric option of a connection (a number, or a plain decimal string), null when unset. Throws EngineNotConfigured
 * naming the connection, the option and `rule.expected` when it breaks the rule.
 */
export function connectionNumber(
  name: string,
  config: EngineConnectionOptions,
  option: string,
  rule: NumberRule,
): number | null {
  const value = config[option];
  if (value === undefined || value === null) return null;
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)
        ? Number(value)
        : NaN;
  const valid =
    Number.isFinite(number) &&
    (!rule.integer || Number.isInteger(number)) &&
    (rule.aboveMin ? number > rule.min : number >= rule.min) &&
    (rule.max === undefined || number <= rule.max);
  if (!valid) {
    throw new EngineNotConfigured(
      `The Engine connection "${name}" has an invalid ${option} (${typeof value === 'string' ? JSON.stringify(value) : String(value)}): ` +
        `set engines.${name}.${option} to ${rule.expected}.`,
    );
  }
  return number;
}
