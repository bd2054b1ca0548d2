import { type DynamicModule, Module } from '@nestjs/common';
import { CanViewRecordsGuard } from './can-view.guard';
import { JsonBodyGuard } from './json-body.guard';
import { JudgmentHttpExceptionFilter } from './judgment-http-exception.filter';
import {
  JUDGMENT_HTTP_ASYNC_OPTIONS_TYPE,
  JUDGMENT_HTTP_OPTIONS_TYPE,
  JudgmentHttpConfigurableModule,
  type JudgmentHttpExtras,
} from './judgment-http.module-definition';
import { JudgmentReviewPageController } from './review-page.controller';
import { CsrfGuard, CsrfTokens } from './csrf';
import { ReviewPageExceptionFilter } from './review-page.filter';
import { JudgmentReviewsController } from './judgment-reviews.controller';
import { JudgmentAuditsController } from './judgment-audits.controller';
import { RequestBodyErrors } from './request-body-errors';
import { ReviewSummaries } from './review-summaries';
import { QueueCounts } from './queue-counts';
import { JudgmentUnknownRouteController } from './unknown-route.controller';

/**
 * The optional Review HTTP adapter, for an admin UI: `GET /judgment/reviews`, `GET /judgment/records/:id`,
 * `POST /judgment/records/:id/resolve`, and audits apart from Reviews: `GET /judgment/audits`,
 * `POST /judgment/records/:id/audit`. Import it beside `JudgmentModule.forRoot()`:
 * `JudgmentHttpModule.forRoot({ canView, reviewerFrom })` (or `forRootAsync` to inject services). Both options
 * default to refusing. Prefix its routes with Nest's RouterModule or a global prefix. `ui: true` adds the review
 * page at `/judgment/desk` (claims, release, resolve; `POST /judgment/records/:id/claim|renew|release` in JSON).
 * Every other request under `/judgment`, and a body the app's parser refuses there, is answered in the envelope.
 */
@Module({
  controllers: [JudgmentReviewsController, JudgmentAuditsController],
  providers: [CanViewRecordsGuard, JsonBodyGuard, JudgmentHttpExceptionFilter, RequestBodyErrors, ReviewSummaries],
})
export class JudgmentHttpModule extends JudgmentHttpConfigurableModule {
  static forRoot(options: typeof JUDGMENT_HTTP_OPTIONS_TYPE): DynamicModule {
    return withRoutes(super.forRoot(options), options);
  }

  static forRootAsync(options: typeof JUDGMENT_HTTP_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withRoutes(super.forRootAsync(options), options);
  }
}

/** Mounts the review page when `ui` is true, then the unknown-route controller: last, so it takes only what is left. */
function withRoutes(definition: DynamicModule, extras: JudgmentHttpExtras): DynamicModule {
  const page = extras.ui === true;
  return {
    ...definition,
    controllers: [
      ...(definition.controllers ?? []),
      ...(page ? [JudgmentReviewPageController] : []),
      JudgmentUnknownRouteController,
    ],
    providers: [
      ...(definition.providers ?? []),
      ...(page ? [CsrfTokens, CsrfGuard, ReviewPageExceptionFilter, QueueCounts] : []),
    ],
  };
}
