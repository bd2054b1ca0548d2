import { Module } from '@nestjs/common';
import { CanViewRecordsGuard } from './can-view.guard';
import { JsonBodyGuard } from './json-body.guard';
import { JudgmentHttpExceptionFilter } from './judgment-http-exception.filter';
import { JudgmentHttpConfigurableModule } from './judgment-http.module-definition';
import { JudgmentReviewsController } from './judgment-reviews.controller';

/**
 * The optional Review HTTP adapter, for an admin UI: `GET /judgment/reviews`, `GET /judgment/records/:id`,
 * `POST /judgment/records/:id/resolve`. Import it beside `JudgmentModule.forRoot()`:
 * `JudgmentHttpModule.forRoot({ canView, reviewerFrom })` (or `forRootAsync` to inject services). Both options
 * default to refusing. Prefix its routes with Nest's RouterModule or a global prefix.
 */
@Module({
  controllers: [JudgmentReviewsController],
  providers: [CanViewRecordsGuard, JsonBodyGuard, JudgmentHttpExceptionFilter],
})
export class JudgmentHttpModule extends JudgmentHttpConfigurableModule {}
