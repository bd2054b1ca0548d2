import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import type { JudgmentHttpRequest } from './judgment-http.options';

/** The cookie holding the review page's CSRF token (double-submit: the forms carry the same value in `_csrf`). */
export const CSRF_COOKIE = 'judgment_csrf';

/**
 * The request's CSRF token from its cookie, or a new one with the `Set-Cookie` header to send (HttpOnly,
 * SameSite=Strict, path /). The page puts the token in each form's hidden `_csrf` field.
 */
export function csrfToken(request: JudgmentHttpRequest): { token: string; setCookie: string | null } {
  const existing = cookieValue(request, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { token: existing, setCookie: null };
  const token = randomBytes(32).toString('base64url');
  return { token, setCookie: `${CSRF_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict` };
}

/**
 * Protects the review page's POST forms against cross-site request forgery, two ways: the browser's origin must be
 * this site (`Origin` equal to the request's host when sent, `Sec-Fetch-Site` same-origin when sent), and the form's
 * `_csrf` field must equal the `judgment_csrf` cookie (double-submit token; a cross-site page can read neither).
 */
@Injectable()
export class CsrfGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<JudgmentHttpRequest>();
    const site = header(request, 'sec-fetch-site');
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw new ForbiddenException(`The form was sent from another site (Sec-Fetch-Site: ${site}); it was refused.`);
    }
    const origin = header(request, 'origin');
    const host = header(request, 'host');
    if (origin !== undefined && origin !== 'null' && (host === undefined || hostOf(origin) !== host)) {
      throw new ForbiddenException(`The form was sent from another origin (${origin}); it was refused.`);
    }
    if (origin === 'null') throw new ForbiddenException('The form was sent from an opaque origin; it was refused.');
    const cookie = cookieValue(request, CSRF_COOKIE);
    const field = (request.body as Record<string, unknown> | undefined)?._csrf;
    if (!cookie || typeof field !== 'string' || !sameToken(cookie, field)) {
      throw new ForbiddenException(
        'The form has no valid CSRF token (it expired or came from elsewhere): reload the page and send it again.',
      );
    }
    return true;
  }
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
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
