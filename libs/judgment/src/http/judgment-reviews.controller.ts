import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  UseFilters,
  UseGuards,
  UsePipes,
} from '@nestjs/common';
import { AssessmentRecords } from '../records/assessment-records.service';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { CanViewRecordsGuard } from './can-view.guard';
import { JsonBodyGuard } from './json-body.guard';
import { JudgmentHttpExceptionFilter } from './judgment-http-exception.filter';
import { JUDGMENT_HTTP_OPTIONS } from './judgment-http.module-definition';
import type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';
import { type RecordDetail, type RecordSummary, recordDetail, recordSummary } from '../records/record.view';
import { ClaimReviewDto, ListReviewsQuery, RecordIdParams, ResolveReviewDto } from './review.dto';
import { findRecord } from './record-lookup';
import { type RecordPage, claimFilter, pageFilter, recordPage } from './record-page';
import { ReviewSummaries } from './review-summaries';
import { optionalReviewer, requestReviewer } from './reviewer-from';
import { judgmentValidationPipe } from './validation';
import type { VotesView } from '../review/review-votes.service';
import type { Reviewer } from '../persistence/reviewer';
import { InvalidReviewer } from '../errors';

/** A record as the JSON API shows it: with the N-of-M votes as the requesting reviewer may see them (blind). */
export type RecordWithVotes = RecordDetail & { readonly votes: VotesView | null };

/** A record in the Review list, with its one-line summary (the Judgment's reviewSummary, or the default). */
export type ReviewListItem = RecordSummary & { readonly summary: string };

/** One page of the Review list (see RecordPage). */
export type ReviewPage = RecordPage<ReviewListItem>;

/**
 * The Review workflow over HTTP, a thin adapter over AssessmentRecords: list the records awaiting Review, show one,
 * resolve it. Reading needs the app's `canView`; resolving needs a reviewer (`reviewerFrom`) whom the app's
 * ResolutionPolicy allows. Every error uses the envelope `{ "error": { "code", "message", "details" } }`.
 */
@Controller('judgment')
@UseFilters(JudgmentHttpExceptionFilter)
@UsePipes(judgmentValidationPipe())
export class JudgmentReviewsController {
  constructor(
    @Inject(JUDGMENT_HTTP_OPTIONS) private readonly options: JudgmentHttpOptions,
    // Provided by JudgmentModule.forRoot(), whose core is global.
    private readonly records: AssessmentRecords,
    private readonly summaries: ReviewSummaries,
  ) {}

  /**
   * `GET /judgment/reviews?limit=20&after=0&judgment=refund-abuse&claim=unclaimed|mine|others&reason=band|drift|collapse
   * &sort=age|deadline|confidence` — oldest first by default.
   */
  @Get('reviews')
  @UseGuards(CanViewRecordsGuard)
  async list(@Query() query: ListReviewsQuery, @Req() request: JudgmentHttpRequest): Promise<ReviewPage> {
    const records = await this.records.awaitingReview({
      ...pageFilter(query),
      sort: query.sort,
      reason: query.reason,
      ...(await claimFilter(query.claim, this.options, request)),
    });
    const page = recordPage(records, query, (record) => record);
    const summaries = await this.summaries.of(page.data);
    return {
      ...page,
      data: page.data.map((record) => ({ ...recordSummary(record), summary: summaries.get(record.id) as string })),
    };
  }

  /** `GET /judgment/records/:id` — the Evidence as the Engine saw it, the answers, the Outcome, the Provenance. */
  @Get('records/:id')
  @UseGuards(CanViewRecordsGuard)
  async show(@Param() params: RecordIdParams, @Req() request: JudgmentHttpRequest): Promise<RecordWithVotes> {
    const record = await this.find(params.id);
    return this.withVotes(record, await optionalReviewer(this.options, request));
  }

  /** `POST /judgment/records/:id/resolve` with `{ "resolution": "approve" }` — only for who may view records. */
  @Post('records/:id/resolve')
  @HttpCode(200)
  @UseGuards(CanViewRecordsGuard, JsonBodyGuard)
  async resolve(
    @Param() params: RecordIdParams,
    @Body() body: ResolveReviewDto,
    @Req() request: JudgmentHttpRequest,
  ): Promise<RecordWithVotes> {
    const reviewer = await requestReviewer(this.options, request);
    const record = await this.find(params.id);
    return this.withVotes(await this.records.resolve(record, body.resolution, reviewer), reviewer);
  }

  /** `POST /judgment/records/:id/claim` with `{ "ttl": "15m" }` (optional) — 409 `conflict` while another holds it. */
  @Post('records/:id/claim')
  @HttpCode(200)
  @UseGuards(CanViewRecordsGuard, JsonBodyGuard)
  async claim(
    @Param() params: RecordIdParams,
    @Body() body: ClaimReviewDto,
    @Req() request: JudgmentHttpRequest,
  ): Promise<RecordDetail> {
    const reviewer = await requestReviewer(this.options, request);
    return recordDetail(await this.records.claim(params.id, reviewer, { ttl: body.ttl }));
  }

  /** `POST /judgment/records/:id/renew` with `{ "ttl": "15m" }` (optional) — the holder's heartbeat. */
  @Post('records/:id/renew')
  @HttpCode(200)
  @UseGuards(CanViewRecordsGuard, JsonBodyGuard)
  async renew(
    @Param() params: RecordIdParams,
    @Body() body: ClaimReviewDto,
    @Req() request: JudgmentHttpRequest,
  ): Promise<RecordDetail> {
    const reviewer = await requestReviewer(this.options, request);
    return recordDetail(await this.records.renew(params.id, reviewer, { ttl: body.ttl }));
  }

  /** `POST /judgment/records/:id/release` (JSON, e.g. `{}`) — frees the holder's claim. */
  @Post('records/:id/release')
  @HttpCode(200)
  @UseGuards(CanViewRecordsGuard, JsonBodyGuard)
  async release(@Param() params: RecordIdParams, @Req() request: JudgmentHttpRequest): Promise<RecordDetail> {
    const reviewer = await requestReviewer(this.options, request);
    return recordDetail(await this.records.release(params.id, reviewer));
  }

  /**
   * The record with its N-of-M votes (`votes`, null for a single-Resolution Decision) as `viewer` may see them: the
   * votes themselves hidden from a viewer who has not voted while voting goes on.
   */
  private async withVotes(record: AssessmentRecord, viewer: Reviewer | null): Promise<RecordWithVotes> {
    let votes: VotesView | null;
    try {
      votes = await this.records.reviewVotes(record, viewer);
    } catch (error) {
      if (!(error instanceof InvalidReviewer)) throw error;
      votes = await this.records.reviewVotes(record, null);
    }
    return { ...recordDetail(record), votes };
  }

  private find(id: number): Promise<AssessmentRecord> {
    return findRecord(this.records, id);
  }
}
