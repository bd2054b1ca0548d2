import {
  Body,
  Controller,
  Get,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
  UseGuards,
  UsePipes,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { decisionMetadata } from '../decision/decision.decorator';
import { decisionThresholds } from '../decision/thresholds';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { AssessmentRecords } from '../records/assessment-records.service';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { CanViewRecordsGuard } from './can-view.guard';
import { CsrfGuard, CsrfTokens } from './csrf';
import { JUDGMENT_HTTP_OPTIONS } from './judgment-http.module-definition';
import type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';
import { recordDetail, recordSummary } from '../records/record.view';
import { findRecord } from './record-lookup';
import { claimFilter, pageFilter, recordPage as pageOf } from './record-page';
import { RecordIdParams, ReviewPageForm, ReviewPageResolveForm, ReviewQueueQuery } from './review.dto';
import { ReviewPageExceptionFilter, reviewPageBase } from './review-page.filter';
import { recordPage } from './record-page.html';
import { PAGE_HEADERS, queuePage } from './review-page.html';
import { requestReviewer } from './reviewer-from';
import { judgmentValidationPipe } from './validation';

/**
 * The review page (`JudgmentHttpModule.forRoot({ ui: true })`): server-rendered HTML, no script. `GET /judgment/desk`
 * is the queue, `GET /judgment/desk/records/:id` a record with its claim, renew, release and resolve forms. The same
 * guards as the JSON API (canView, reviewerFrom, the ResolutionPolicy; all refuse by default); POSTs are CSRF-checked
 * (CsrfGuard); every error is a page with the envelope's code and message.
 */
@Controller('judgment/desk')
@UseFilters(ReviewPageExceptionFilter)
@UseGuards(CanViewRecordsGuard)
@UsePipes(judgmentValidationPipe())
export class JudgmentReviewPageController {
  constructor(
    @Inject(JUDGMENT_HTTP_OPTIONS) private readonly options: JudgmentHttpOptions,
    private readonly records: AssessmentRecords,
    private readonly registry: JudgmentRegistry,
    private readonly adapterHost: HttpAdapterHost,
    private readonly csrf: CsrfTokens,
  ) {}

  /** The queue: `?judgment=&claim=unclaimed|mine&after=`, paged by the last id of the previous page (no OFFSET). */
  @Get()
  async queue(@Query() query: ReviewQueueQuery, @Req() request: JudgmentHttpRequest, @Res() response: unknown) {
    const records = await this.records.awaitingReview({
      ...pageFilter(query),
      ...(await claimFilter(query.claim, this.options, request)),
    });
    const { data, page } = pageOf(records, query, recordSummary);
    const html = queuePage({
      base: reviewPageBase(request),
      records: data,
      judgment: query.judgment,
      claim: query.claim,
      after: query.after,
      limit: query.limit,
      nextAfter: page.nextAfter,
    });
    this.send(response, html);
  }

  /** One record, with the forms to work it. */
  @Get('records/:id')
  async record(@Param() params: RecordIdParams, @Req() request: JudgmentHttpRequest, @Res() response: unknown) {
    const record = await this.find(params.id);
    const { token, setCookie } = await this.csrf.forPage(request);
    const html = recordPage({
      base: reviewPageBase(request),
      record: recordDetail(record),
      csrf: token,
      ...this.decisionView(record),
    });
    this.send(response, html, setCookie);
  }

  @Post('records/:id/claim')
  @UseGuards(CsrfGuard)
  async claim(
    @Param() params: RecordIdParams,
    @Body() _form: ReviewPageForm,
    @Req() request: JudgmentHttpRequest,
    @Res() response: unknown,
  ) {
    await this.records.claim(params.id, await requestReviewer(this.options, request));
    this.redirect(response, `${reviewPageBase(request)}/records/${params.id}`);
  }

  /** Extends the requesting reviewer's own claim by the default lease (someone else's claim is a conflict page). */
  @Post('records/:id/renew')
  @UseGuards(CsrfGuard)
  async renew(
    @Param() params: RecordIdParams,
    @Body() _form: ReviewPageForm,
    @Req() request: JudgmentHttpRequest,
    @Res() response: unknown,
  ) {
    await this.records.renew(params.id, await requestReviewer(this.options, request));
    this.redirect(response, `${reviewPageBase(request)}/records/${params.id}`);
  }

  @Post('records/:id/release')
  @UseGuards(CsrfGuard)
  async release(
    @Param() params: RecordIdParams,
    @Body() _form: ReviewPageForm,
    @Req() request: JudgmentHttpRequest,
    @Res() response: unknown,
  ) {
    await this.records.release(params.id, await requestReviewer(this.options, request));
    this.redirect(response, `${reviewPageBase(request)}/records/${params.id}`);
  }

  /** Resolves and returns to the queue, which the case has left. */
  @Post('records/:id/resolve')
  @UseGuards(CsrfGuard)
  async resolve(
    @Param() params: RecordIdParams,
    @Body() form: ReviewPageResolveForm,
    @Req() request: JudgmentHttpRequest,
    @Res() response: unknown,
  ) {
    const reviewer = await requestReviewer(this.options, request);
    await this.records.resolve(await this.find(params.id), form.resolution, reviewer);
    this.redirect(response, reviewPageBase(request));
  }

  /** The Outcomes a person may resolve with and the Decision's thresholds (none when its Decision is unknown). */
  private decisionView(record: AssessmentRecord) {
    if (record.decision === null || !this.registry.hasDecision(record.decision)) {
      return { resolutions: [], thresholds: null };
    }
    const cls = this.registry.decision(record.decision);
    const metadata = decisionMetadata(cls);
    const decision = this.registry.decisionOf(cls);
    return {
      resolutions: metadata.outcomes.filter((o) => !metadata.review.has(o)).map(String),
      thresholds: decisionThresholds(decision),
    };
  }

  private find(id: number): Promise<AssessmentRecord> {
    return findRecord(this.records, id);
  }

  private send(response: unknown, html: string, setCookie: string | null = null): void {
    const adapter = this.adapterHost.httpAdapter;
    for (const [name, value] of Object.entries(PAGE_HEADERS)) adapter.setHeader(response, name, value);
    if (setCookie) adapter.setHeader(response, 'Set-Cookie', setCookie);
    adapter.reply(response, html, 200);
  }

  private redirect(response: unknown, url: string): void {
    this.adapterHost.httpAdapter.redirect(response, 303, url);
  }
}
