/** Deepest nesting of arrays and objects accepted in JSON an Engine sends. */
export const MAX_FOREIGN_DEPTH = 64;

/** Longest text taken from an Engine into a message, log line or error (reasons, details). */
export const MAX_FOREIGN_TEXT = 500;

/** Largest raw response body kept in Provenance details (`response`); larger bodies are kept shortened. */
export const MAX_PROVENANCE_BODY_CHARS = 64 * 1024;

/** How much of a larger body Provenance keeps. */
export const PROVENANCE_HEAD_CHARS = 4096;

/** Whether JSON text nests arrays and objects deeper than `maxDepth` (one linear scan, strings skipped). */
export function nestsDeeperThan(text: string, maxDepth: number = MAX_FOREIGN_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}

/**
 * Parses JSON text from an Engine, refusing nesting deeper than `maxDepth` (every recursive reader of such a value —
 * JSON.stringify, a join, a database driver — would throw RangeError). Null when refused or not JSON.
 */
export function parseForeignJson(text: string, maxDepth: number = MAX_FOREIGN_DEPTH): unknown {
  if (nestsDeeperThan(text, maxDepth)) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** A parsed value with every string (keys included) passed through `redact`; depth must already be bounded. */
export function redactDeep(value: unknown, secret: string | null): unknown {
  if (!secret) return value;
  if (typeof value === 'string') return redact(value, secret);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secret));
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(copy, redact(key, secret), {
      value: redactDeep(item, secret),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * `redactDeep` of `parsed`, the value JSON-parsed from `text` after `redact`. A text without a backslash has strings
 * that decode to themselves, so once it holds no secret neither does its value: the value is returned as it is,
 * without walking or copying it.
 */
export function redactParsed(parsed: unknown, text: string, secret: string | null): unknown {
  if (!secret || (!text.includes('\\') && !text.includes(secret))) return parsed;
  return redactDeep(parsed, secret);
}

/** Input and output token counts an Engine reported: whole numbers ≥ 0 only, anything else left out. */
export function tokenCounts(usage: unknown): Record<string, number> | null {
  if (usage === null || typeof usage !== 'object' || Array.isArray(usage)) return null;
  const counts: Record<string, number> = {};
  for (const [key, value] of Object.entries(usage)) {
    if (/^[a-z_]{1,40}$/i.test(key) && Number.isSafeInteger(value) && (value as number) >= 0) {
      counts[key] = value as number;
    }
  }
  return counts;
}

/** `text` cut to `max` characters, with an ellipsis when cut. */
export function shorten(text: string, max: number = MAX_FOREIGN_TEXT): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `text` with every occurrence of `secret` (and of its JSON-escaped form) replaced by `[redacted]`. */
export function redact(text: string, secret: string | null): string {
  if (!secret) return text;
  const escaped = JSON.stringify(secret).slice(1, -1);
  const cleaned = text.replaceAll(secret, '[redacted]');
  return escaped === secret ? cleaned : cleaned.replaceAll(escaped, '[redacted]');
}
