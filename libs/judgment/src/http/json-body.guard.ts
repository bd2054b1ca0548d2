import {
  BadRequestException,
  type CanActivate,
  type ExecutionContext,
  HttpException,
  HttpStatus,
  Injectable,
} from '@nestjs/common';
import { RequestValidationFailed } from './error-envelope';
import type { JudgmentHttpRequest } from './judgment-http.options';

/** Deepest nesting accepted in a request body of the package's routes (their DTOs are flat). */
export const MAX_BODY_DEPTH = 16;

/**
 * Lets a POST of the JSON API through only when it declares JSON: a form post or a post without a Content-Type (which
 * a cross-site page can send with the reviewer's cookies, without a CORS preflight) is refused with 415, a body
 * nested deeper than MAX_BODY_DEPTH or holding a `__proto__` key with 400 — before any DTO transformation could
 * recurse through it.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<JudgmentHttpRequest & { body?: unknown }>();
    const type = String(request.headers?.['content-type'] ?? '');
    if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
      throw new HttpException(
        `This route accepts only JSON: send the body with Content-Type: application/json (got ${
          type === '' ? 'none' : JSON.stringify(type.slice(0, 100))
        }).`,
        HttpStatus.UNSUPPORTED_MEDIA_TYPE,
      );
    }
    checkBody(request.body);
    return true;
  }
}

/**
 * Walks the body without recursion: refuses deep nesting, and a `__proto__` key as the DTOs refuse any unknown field
 * (`validation_error` with the field's path), since no DTO declares one.
 */
function checkBody(body: unknown): void {
  const stack: Array<[unknown, number, string]> = [[body, 0, '']];
  while (stack.length > 0) {
    const [value, depth, path] = stack.pop() as [unknown, number, string];
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) {
      throw new BadRequestException(`The request body is nested deeper than ${MAX_BODY_DEPTH} levels.`);
    }
    if (Object.hasOwn(value, '__proto__')) {
      const field = `${path}__proto__`;
      throw new RequestValidationFailed({ [field]: [`property ${field} should not exist`] });
    }
    for (const [key, item] of Object.entries(value)) stack.push([item, depth + 1, `${path}${key}.`]);
  }
}
