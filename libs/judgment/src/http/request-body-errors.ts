import { HttpException, HttpStatus, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { answerError } from './error-envelope';
import { UNKNOWN_ROUTE_WILDCARD } from './unknown-route.controller';

/** What the body parser (body-parser, as Express runs it) attaches to an error it raises about the request. */
interface BodyParserError {
  readonly type: string;
  readonly status: number;
  readonly message: string;
  readonly limit?: number;
  readonly length?: number;
}

/** A body the app's body parser refused (malformed, too large, unreadable): a 4xx error with a body-parser `type`. */
function isBodyParserError(error: unknown): error is BodyParserError {
  if (typeof error !== 'object' || error === null) return false;
  const { type, status } = error as { type?: unknown; status?: unknown };
  return typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500;
}

/** The refusal a body-parser error becomes in the envelope: what was wrong with the body and what to send instead. */
function bodyRefusal(error: BodyParserError): HttpException {
  const detail = error.message.length > 200 ? `${error.message.slice(0, 200)}…` : error.message;
  if (error.type === 'entity.parse.failed') {
    return new HttpException(
      `The request body is not valid JSON (${detail}): send a JSON object with Content-Type: application/json.`,
      HttpStatus.BAD_REQUEST,
    );
  }
  if (error.type === 'entity.too.large') {
    const size = error.length === undefined ? '' : ` (${error.length} bytes)`;
    const limit = error.limit === undefined ? '' : ` of ${error.limit} bytes`;
    return new HttpException(
      `The request body is too large${size} for the server's limit${limit}: send a smaller body.`,
      HttpStatus.PAYLOAD_TOO_LARGE,
    );
  }
  return new HttpException(`The request body could not be read: ${detail}.`, error.status);
}

/**
 * Answers in the envelope the bodies the app's body parser refuses on the adapter's routes. The parser runs before
 * any route, so neither the adapter's controllers nor their filters see its errors, and Nest hands them to the app's
 * global filters. Once the routes are mounted (onModuleInit, before Nest adds its own error handler), this mounts an
 * Express error handler on the adapter's path only — found as the path of the adapter's unknown-route controller, so
 * the app's global prefix and RouterModule path count — and leaves every other error to the app. On a platform other
 * than Express it mounts nothing, and such errors keep the platform's answer.
 */
@Injectable()
export class RequestBodyErrors implements OnModuleInit {
  private readonly logger = new Logger('JudgmentHttp');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter?.getType() !== 'express') return;
    const paths = adapterPaths(adapter.getInstance());
    if (paths.length === 0) {
      this.logger.warn(
        'The Review HTTP adapter found none of its routes on the Express app: unreadable request bodies get the ' +
          "app's default answer, not the envelope.",
      );
    }
    for (const path of paths) {
      adapter.use(path, (error: unknown, _request: unknown, response: unknown, next: (error: unknown) => void) => {
        if (!isBodyParserError(error)) return next(error);
        const { status, body } = answerError(bodyRefusal(error));
        adapter.reply(response, body, status);
      });
    }
  }
}

/** The paths the adapter is mounted at on an Express app: those of its unknown-route route, without the wildcard. */
function adapterPaths(app: unknown): string[] {
  const stack = (app as { router?: { stack?: unknown } }).router?.stack;
  if (!Array.isArray(stack)) return [];
  const suffix = `/{*${UNKNOWN_ROUTE_WILDCARD}}`;
  const paths = new Set<string>();
  for (const layer of stack as Array<{ route?: { path?: unknown } }>) {
    const path = layer.route?.path;
    if (typeof path === 'string' && path.endsWith(suffix)) paths.add(path.slice(0, -suffix.length));
  }
  return [...paths];
}
