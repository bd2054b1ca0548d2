import {
  EngineFailed,
  EngineOverloaded,
  EngineRateLimited,
  EngineRejectedRequest,
  EngineUnauthorized,
} from '../../errors';
import { parseForeignJson, redact, shorten } from './foreign-json';

/** Which connection and request a response or failure belongs to. */
export interface ResponseOrigin {
  readonly connection: string;
  readonly requestId: string | null;
  /** The URL asked, and the connection's `url` option the driver built it from (named in a 404). */
  readonly asked?: { readonly endpoint: string; readonly url: string };
}

/** `connection "jev", request req_1`, or just the connection when the Engine sent no request id. */
export function describeOrigin({ connection, requestId }: ResponseOrigin): string {
  return requestId ? `connection "${connection}", request ${requestId}` : `connection "${connection}"`;
}

/**
 * A non-2xx answer, after any retries, as the matching EngineFailed. `secret` is blanked out of the reason, which
 * `readReason` takes from the body (default: the Jev `detail` shapes).
 */
export function statusError(
  status: number,
  body: string,
  origin: ResponseOrigin,
  attempts: number,
  secret: string | null,
  readReason: (body: string) => string = errorReason,
): EngineFailed {
  const where = `HTTP ${status}, ${describeOrigin(origin)}`;
  const given = shorten(redact(readReason(redact(body, secret)), secret)).trimEnd();
  const reason = given.endsWith('.') ? given.slice(0, -1) : given;
  const option = (name: string) => `engines.${origin.connection}.${name}`;
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const details = { requestId: origin.requestId };
  switch (status) {
    case 400:
    case 422:
      return new EngineRejectedRequest(
        `The Engine rejected the request as invalid (${where}): ${reason}. Fix what it names; sending it again will not help.`,
        details,
      );
    case 401:
    case 403:
      return new EngineUnauthorized(
        `The Engine refused the credentials (${where}): ${reason}. Check the API key in ${option('key')}.`,
        details,
      );
    case 429:
      return new EngineRateLimited(
        `The Engine still rate-limited the request after ${tries} (${where}): ${reason}. ` +
          `Send fewer requests, or allow more retries in ${option('retries')}.`,
        details,
      );
    case 404:
      return (
        notFound(where, reason, origin, details) ??
        new EngineFailed(`The Engine failed (${where}): ${reason}.`, details)
      );
    case 529:
      return new EngineOverloaded(
        `The Engine was still overloaded after ${tries} (${where}): ${reason}. ` +
          `Try again later, or allow more retries in ${option('retries')}.`,
        details,
      );
    default:
      return new EngineFailed(`The Engine failed (${where}): ${reason}.`, details);
  }
}

/**
 * A 404: most often a `url` option that is not the server's base URL (it already ends in the path the driver
 * appends, or lacks a prefix such as /v1). Names the full URL asked and the path the driver appends.
 */
function notFound(
  where: string,
  reason: string,
  { connection, asked }: ResponseOrigin,
  details: { requestId: string | null },
): EngineFailed | null {
  if (!asked || !asked.endpoint.startsWith(asked.url)) return null;
  const appended = asked.endpoint.slice(asked.url.length).split('?')[0];
  return new EngineFailed(
    `The Engine answered 404 Not Found for POST ${asked.endpoint} (${where}): ${reason}. The driver appends ` +
      `${appended} to engines.${connection}.url (${asked.url}): set the url to the server's base URL, without ` +
      `${appended}.`,
    details,
  );
}

const MAX_RAW_REASON = 300;

/**
 * The reason an Engine gave for an error, from its `detail`: an object (`message`, else `error_type`), a list of
 * validation items (`loc` without the leading "body", then `msg`; the echoed `input` is left out), or a string.
 * Any other body is quoted raw, shortened.
 */
export function errorReason(body: string): string {
  const detail = parseDetail(body);
  if (typeof detail === 'string' && detail.trim() !== '') return detail;
  if (Array.isArray(detail) && detail.length > 0) return detail.slice(0, 10).map(validationItem).join('; ');
  if (detail !== null && typeof detail === 'object') {
    const { message, error_type: type } = detail as { message?: unknown; error_type?: unknown };
    if (typeof message === 'string' && message.trim() !== '') return message;
    if (type === 'max_tokens_exceeded') {
      return 'max_tokens_exceeded: the Evidence and Questions are longer than the model accepts; shorten the Evidence';
    }
    if (typeof type === 'string') return type;
  }
  const raw = body
    .slice(0, MAX_RAW_REASON * 4)
    .replace(/\s+/g, ' ')
    .trim();
  if (raw === '') return 'no reason given (empty body)';
  return raw.length > MAX_RAW_REASON ? `${raw.slice(0, MAX_RAW_REASON)}…` : raw;
}

function validationItem(item: unknown): string {
  const { loc, msg } = (item ?? {}) as { loc?: unknown; msg?: unknown };
  // Only plain segments: a nested `loc` would make join() recurse without bound.
  const segments = Array.isArray(loc) ? loc.filter((part) => typeof part === 'string' || typeof part === 'number') : [];
  const path = shorten(segments.slice(segments[0] === 'body' ? 1 : 0, 20).join('.'), 200);
  const message = typeof msg === 'string' ? shorten(msg, 200) : 'invalid';
  return path ? `${path}: ${message}` : message;
}

function parseDetail(body: string): unknown {
  const parsed = parseForeignJson(body) as { detail?: unknown } | null;
  return parsed !== null && typeof parsed === 'object' ? (parsed.detail ?? null) : null;
}
