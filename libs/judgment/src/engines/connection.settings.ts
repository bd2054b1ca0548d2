import { EngineNotConfigured } from '../errors';
import type { EngineConnectionOptions } from '../judgment.options';
import { MAX_LABELS } from '../questions/classification';
import { isLoopbackUrl } from './http/loopback';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RETRIES, DEFAULT_TIMEOUT_SECONDS } from '../judgment.defaults';

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

/** A setting read as a number: a number, or a plain decimal string as configuration services deliver it; else NaN. */
export function settingNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
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
  const number = settingNumber(value);
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

/** What an HTTP driver reads from every connection: its key, base URL and model, and the numeric settings. */
export interface HttpConnectionSettings extends ConnectionSettings {
  /** API key; null sends none (allowed by the key rule, see `checkKeyNotNeeded`). */
  readonly key: string | null;
  /** Base URL without trailing slashes. */
  readonly url: string;
  readonly model: string;
}

/** How an HTTP driver's errors explain its connection's options. */
export interface HttpConnectionHints {
  /** The base URL when a connection sets none. */
  readonly defaultUrl: string;
  /** How the model is pinned, e.g. `pinned to an exact version such as "jev-1.13.0"`. */
  readonly model: string;
  /** Example base URLs, e.g. `"https://api.typesafe.ai"`. */
  readonly urls: string;
}

/**
 * Reads an HTTP driver's connection: model (required), url (http or https, default `hints.defaultUrl`), key (the key
 * rule) and the numeric settings. Throws EngineNotConfigured naming the connection and the option to fix.
 */
export function httpConnectionSettings(
  name: string,
  config: EngineConnectionOptions,
  hints: HttpConnectionHints,
): HttpConnectionSettings {
  const option = `engines.${name}`;
  if (typeof config.model !== 'string' || config.model.trim() === '') {
    throw new EngineNotConfigured(
      `The Engine connection "${name}" has no model. Set ${option}.model to the model it asks, ${hints.model}.`,
    );
  }
  const url = String(config.url ?? hints.defaultUrl).replace(/\/+$/, '');
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new EngineNotConfigured(
      `The Engine connection "${name}" has an invalid url (${JSON.stringify(config.url)}): set ` +
        `${option}.url to the server's http(s) base URL, such as ${hints.urls}.`,
    );
  }
  const key = typeof config.key === 'string' && config.key !== '' ? config.key : null;
  if (key === null) checkKeyNotNeeded(name, url, config.requireKey);
  else checkKeyBlankable(name, key);
  return { ...connectionSettings(name, config), key, url, model: config.model };
}

/** The variables `judgmentOptionsFromEnv` reads each connection's key from, named in the error. */
const KEY_VARIABLES: Readonly<Record<string, string>> = {
  jev: 'TYPESAFE_API_KEY',
  laya: 'LAYA_API_KEY',
  openai: 'OPENAI_API_KEY',
};

/**
 * The shortest API key a connection takes. The driver blanks its key out of everything it takes from a response
 * (model, request id, reasons, the raw body), before reading it; a key this short would occur in ordinary answers and
 * blank parts of them (a one-character key made every answer unreadable, and its usage went unmetered).
 */
const MIN_KEY_LENGTH = 8;

/** Refuses a key too short to be blanked from responses without corrupting them (see MIN_KEY_LENGTH). */
function checkKeyBlankable(connection: string, key: string): void {
  if (key.length >= MIN_KEY_LENGTH) return;
  const variable = Object.hasOwn(KEY_VARIABLES, connection) ? ` (${KEY_VARIABLES[connection]})` : '';
  throw new EngineNotConfigured(
    `The Engine connection "${connection}" has an API key of ${key.length} character${key.length === 1 ? '' : 's'}; ` +
      `keys must have at least ${MIN_KEY_LENGTH} characters, because the driver blanks its key out of every ` +
      `response and a shorter one would blank parts of ordinary answers. Set engines.${connection}.key${variable} ` +
      "to the provider's key, or leave it out for a server on this machine that needs none.",
  );
}

/**
 * The key rule: a connection without a key is refused unless its url is a loopback address (a server on this
 * machine, like the Jev simulator) — or unless `requireKey` says otherwise, which wins either way.
 */
function checkKeyNotNeeded(connection: string, url: string, requireKey: boolean | undefined): void {
  if (requireKey === false || (requireKey === undefined && isLoopbackUrl(url))) return;
  const variable = Object.hasOwn(KEY_VARIABLES, connection) ? ` (${KEY_VARIABLES[connection]})` : '';
  const setKey = `Set engines.${connection}.key${variable}`;
  throw new EngineNotConfigured(
    requireKey === true
      ? `The Engine connection "${connection}" has no API key, and engines.${connection}.requireKey is true. ` +
          `${setKey}, or remove requireKey.`
      : `The Engine connection "${connection}" has no API key, and its url ${url} is not a loopback address. ` +
          `${setKey}, or point engines.${connection}.url at a server on this machine (127.0.0.1, localhost or ` +
          `[::1]), which needs none; for a remote server that needs none, set engines.${connection}.requireKey to false.`,
  );
}
