import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { answerError } from './error-envelope';

/**
 * Answers every error of the controllers it is applied to with one envelope:
 * `{ "error": { "code", "message", "details" } }` (codes: validation_error, not_found, forbidden, conflict,
 * engine_failed, internal_error). Scoped with `@UseFilters(JudgmentHttpExceptionFilter)`; apps may apply it to their
 * own controllers that call the Judge, so an Engine failure reads `engine_failed` there too.
 */
@Catch()
@Injectable()
export class JudgmentHttpExceptionFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { status, body } = answerError(exception);
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, status);
  }
}
