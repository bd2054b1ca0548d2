/** Deepest nesting of arrays and objects accepted in JSON an Engine sends. */
export const MAX_FOREIGN_DEPTH = 64;

/** Longest text taken from an Engine into a message, log line or error (reasons, details). */
export const MAX_FOREIGN_TEXT = 500;

/** Largest raw response body kept in Provenance details (`response`); larger bodies are kept shortened. */
export const MAX_PROVENANCE_BODY_CHARS = 64 * 1024;

/** How much of a larger body Provenance keeps. */
export const PROVENANCE_HEAD_CHARS = 4096;

/** Why foreign JSON was refused. */
export type ForeignJsonFailure = 'not JSON' | `nested deeper than ${number} levels`;

/**
 * Parses JSON text from an Engine, refusing nesting deeper than `maxDepth` before JSON.parse could (a deeply nested
 * body would otherwise make every recursive reader of it throw RangeError). One linear scan, strings skipped.
 */
export function parseForeignJson(
  text: string,
  maxDepth: number = MAX_FOREIGN_DEPTH,
): { ok: true; value: unknown } | { ok: false; reason: ForeignJsonFailure } {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > maxDepth) return { ok: false, reason: `nested deeper than ${maxDepth} levels` };
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
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
