import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { RequestValidationFailed, answerError } from './error-envelope';
import { errorPage } from './error-page.html';
import { PAGE_HEADERS } from './review-page.html';

/** The review page's errors as a page: the envelope's status, code and message; the detail of a 500 only in the log. */
@Catch()
@Injectable()
export class ReviewPageExceptionFilter implements ExceptionFilter {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { status, body } = answerError(exception);
    const adapter = this.adapterHost.httpAdapter;
    const response = host.switchToHttp().getResponse();
    for (const [name, value] of Object.entries(PAGE_HEADERS)) adapter.setHeader(response, name, value);
    const base = reviewPageBase(host.switchToHttp().getRequest());
    const fields = exception instanceof RequestValidationFailed ? exception.fields : null;
    adapter.reply(
      response,
      errorPage({ base, status, code: body.error.code, message: body.error.message, fields }),
      status,
    );
  }
}

/** The review page's own path. */
const PAGE_PATH = '/judgment/desk';

/** The URL path of the review page as this request reached it (with the app's global prefix or router path). */
export function reviewPageBase(request: object): string {
  const { originalUrl, url } = request as { originalUrl?: unknown; url?: unknown };
  const path = String(originalUrl ?? url ?? PAGE_PATH).split('?')[0];
  const at = path.indexOf(PAGE_PATH);
  return at < 0 ? PAGE_PATH : path.slice(0, at + PAGE_PATH.length);
}
