import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { InvalidConfiguration } from '../errors';
import type { Reviewer } from '../persistence/reviewer';
import { AssessmentRecords } from '../records/assessment-records.service';
import { JUDGMENT_HTTP_OPTIONS } from './judgment-http.module-definition';
import type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';
import { optionalReviewer, requestReviewer } from './reviewer-from';

/** The cookie holding the review page's CSRF token (double-submit: the forms carry the same value in `_csrf`). */
export const CSRF_COOKIE = 'judgment_csrf';

/** The shortest `csrfSecret` accepted. */
const MIN_SECRET_LENGTH = 32;

/** How long a CSRF token is good for: 12 hours. A page opened with under half of that left gets a new one. */
export const CSRF_TOKEN_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * The review page's CSRF tokens: `nonce.issued.signature`, the signature an HMAC of the nonce (random, per browser:
 * the cookie is the session it binds to), the time it was issued (seconds) and the reviewer (type and id) under the
 * `csrfSecret` option (default: a random key of this application instance). A token is good only for the reviewer it
 * was made for, for CSRF_TOKEN_TTL_MS, and only if this app made it: a cookie someone else planted is never taken as
 * the token, and a leaked token stops working.
 */
@Injectable()
export class CsrfTokens {
  private readonly secret: Buffer;

  constructor(
    @Inject(JUDGMENT_HTTP_OPTIONS) private readonly options: JudgmentHttpOptions,
    private readonly records: AssessmentRecords,
  ) {
    const configured = options.csrfSecret;
    if (configured !== undefined && (typeof configured !== 'string' || configured.length < MIN_SECRET_LENGTH)) {
      throw new InvalidConfiguration(
        `JudgmentHttpModule's csrfSecret must be a string of at least ${MIN_SECRET_LENGTH} characters (got ${
          typeof configured === 'string' ? `${configured.length}` : typeof configured
        }): generate one with \`openssl rand -base64 32\`, or leave it out for a random key per instance.`,
      );
    }
    this.secret = configured === undefined ? randomBytes(32) : Buffer.from(configured);
  }

  /**
   * The token for the request's page: the cookie's when this app made it for the same reviewer, else a new one with
   * the `Set-Cookie` header to send (HttpOnly, SameSite=Strict, path /).
   */
  async forPage(request: JudgmentHttpRequest): Promise<{ token: string; setCookie: string | null }> {
    const subject = this.subject(await optionalReviewer(this.options, request));
    const existing = cookieValue(request, CSRF_COOKIE);
    if (existing !== undefined && this.signs(existing, subject, CSRF_TOKEN_TTL_MS / 2)) {
      return { token: existing, setCookie: null };
    }
    const nonce = randomBytes(18).toString('base64url');
    const issued = String(Math.floor(Date.now() / 1000));
    const token = `${nonce}.${issued}.${this.signature(nonce, issued, subject)}`;
    const maxAge = Math.floor(CSRF_TOKEN_TTL_MS / 1000);
    return { token, setCookie: `${CSRF_COOKIE}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict` };
  }

  /** Whether a form's token is this app's token for the request's reviewer, and the cookie carries the same. */
  async accepts(request: JudgmentHttpRequest, field: unknown): Promise<boolean> {
    const subject = this.subject(await requestReviewer(this.options, request));
    const cookie = cookieValue(request, CSRF_COOKIE);
    return (
      cookie !== undefined &&
      typeof field === 'string' &&
      sameText(cookie, field) &&
      this.signs(cookie, subject, CSRF_TOKEN_TTL_MS)
    );
  }

  /** Who a token is for: the reviewer's recorded type and id, or nobody. */
  private subject(reviewer: Reviewer | null): string {
    if (reviewer === null) return '';
    const { type, id } = this.records.reviewerReference(reviewer);
    return `${type}\n${id}`;
  }

  /** Whether this app signed `token` for `subject` less than `lifetime` ms ago. */
  private signs(token: string, subject: string, lifetime: number): boolean {
    const [nonce, issued, signature, ...rest] = token.split('.');
    if (rest.length > 0 || !nonce || !/^\d{1,12}$/.test(issued ?? '') || !signature) return false;
    const age = Date.now() - Number(issued) * 1000;
    return age >= -60_000 && age < lifetime && sameText(signature, this.signature(nonce, issued, subject));
  }

  private signature(nonce: string, issued: string, subject: string): string {
    return createHmac('sha256', this.secret)
      .update(`judgment-csrf\n${nonce}\n${issued}\n${subject}`)
      .digest('base64url');
  }
}

/**
 * Protects the review page's POST forms against cross-site request forgery, two ways: the browser's origin must be
 * this site (`Origin`, when sent, equal in scheme, host and port to the request's own; `Sec-Fetch-Site` same-origin
 * when sent), and the form's `_csrf` field must be this app's token for the requesting reviewer, equal to the
 * `judgment_csrf` cookie (a cross-site page can read neither, nor make one).
 */
@Injectable()
export class CsrfGuard implements CanActivate {
  constructor(private readonly tokens: CsrfTokens) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<JudgmentHttpRequest>();
    const site = header(request, 'sec-fetch-site');
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw new ForbiddenException(`The form was sent from another site (Sec-Fetch-Site: ${site}); it was refused.`);
    }
    const origin = header(request, 'origin');
    if (origin === 'null') throw new ForbiddenException('The form was sent from an opaque origin; it was refused.');
    if (origin !== undefined && originOf(origin) !== ownOrigin(request)) {
      throw new ForbiddenException(`The form was sent from another origin (${origin}); it was refused.`);
    }
    const field = (request.body as Record<string, unknown> | undefined)?._csrf;
    if (!(await this.tokens.accepts(request, field))) {
      throw new ForbiddenException(
        'The form has no valid CSRF token (it expired, was made for another reviewer, or came from elsewhere): ' +
          'reload the page and send it again.',
      );
    }
    return true;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** An origin as the browser serialises it (`https://host:port`, the default port left out), or null. */
function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * The origin the request was sent to: its protocol (Express's and Fastify's `request.protocol`, which honour the
 * platform's trust-proxy setting behind a TLS-terminating proxy) and its Host header.
 */
function ownOrigin(request: JudgmentHttpRequest): string | null {
  const host = header(request, 'host');
  if (host === undefined) return null;
  const protocol =
    typeof request.protocol === 'string' ? request.protocol : request.socket?.encrypted ? 'https' : 'http';
  return originOf(`${protocol}://${host}`);
}

function header(request: JudgmentHttpRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function cookieValue(request: JudgmentHttpRequest, name: string): string | undefined {
  for (const part of (header(request, 'cookie') ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
