import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { errorEnvelope } from './error-envelope';

/**
 * Answers every error of the controllers it is applied to with one envelope:
 * `{ "error": { "code", "message", "details" } }` (codes: validation_error, not_found, forbidden, conflict,
 * engine_failed, internal_error). Scoped with `@UseFilters(JudgmentHttpExceptionFilter)`; apps may apply it to their
 * own controllers that call the Judge, so an Engine failure reads `engine_failed` there too.
 */
@Catch()
@Injectable()
export class JudgmentHttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('JudgmentHttp');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { status, body } = errorEnvelope(exception);
    if (status >= 500 && body.error.code === 'internal_error') {
      this.logger.error(
        exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception),
        exception instanceof Error ? exception.stack : undefined,
      );
    }
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, status);
  }
}
