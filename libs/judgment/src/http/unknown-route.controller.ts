import { All, Controller, NotFoundException, Req, UseFilters } from '@nestjs/common';
import { JudgmentHttpExceptionFilter } from './judgment-http-exception.filter';
import type { JudgmentHttpRequest } from './judgment-http.options';

/** The name of the wildcard of the adapter's last route; `request-body-errors.ts` finds the adapter's path by it. */
export const UNKNOWN_ROUTE_WILDCARD = 'judgmentUnknownRoute';

/** The longest request path a 404 message repeats. */
const MAX_PATH_SHOWN = 200;

/**
 * Answers every request under the adapter's path that no route of the adapter takes (an unknown path, or a known path
 * with the wrong method) with a 404 `not_found` in the envelope, instead of the platform's default page. Mounted after
 * the adapter's other controllers, it claims nothing outside `/judgment` (with the app's prefix, if any), so the
 * app's own 404s stay the app's.
 */
@Controller('judgment')
@UseFilters(JudgmentHttpExceptionFilter)
export class JudgmentUnknownRouteController {
  @All(['', `{*${UNKNOWN_ROUTE_WILDCARD}}`])
  unknown(@Req() request: JudgmentHttpRequest): never {
    const path = String(request.originalUrl ?? request.url ?? '').split('?')[0];
    const shown = path.length > MAX_PATH_SHOWN ? `${path.slice(0, MAX_PATH_SHOWN)}…` : path;
    throw new NotFoundException(
      `The Review API has no route ${String(request.method)} ${shown}. Its routes: GET /judgment/reviews, ` +
        'GET /judgment/audits, GET /judgment/records/:id, POST /judgment/records/:id/resolve|claim|renew|release|audit ' +
        '(and GET /judgment/desk with the review page).',
    );
  }
}
