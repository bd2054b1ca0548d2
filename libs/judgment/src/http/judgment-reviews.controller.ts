import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
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
import { requestReviewer } from './reviewer-from';
import { judgmentValidationPipe } from './validation';

/** The largest record id: the id column is a 32-bit integer. */
const MAX_RECORD_ID = 2 ** 31 - 1;

/**
 * One page of the Review list. `nextAfter` is the `after` of the next page (keyset pagination, fast at any depth);
 * `next` is its `offset` (slow on large tables). Both are null on the last page.
 */
export interface ReviewPage {
  readonly data: RecordSummary[];
  readonly page: {
    readonly limit: number;
    readonly offset: number;
    readonly next: number | null;
    readonly nextAfter: number | null;
  };
}

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
  ) {}

  /** `GET /judgment/reviews?limit=20&after=0&judgment=refund-abuse&claim=unclaimed|mine` — oldest first. */
  @Get('reviews')
  @UseGuards(CanViewRecordsGuard)
  async list(@Query() query: ListReviewsQuery, @Req() request: JudgmentHttpRequest): Promise<ReviewPage> {
    const records = await this.records.awaitingReview({
      judgment: query.judgment,
      ...(query.claim === 'unclaimed' ? { unclaimed: true } : {}),
      ...(query.claim === 'mine' ? { claimedBy: await requestReviewer(this.options, request) } : {}),
      limit: query.limit + 1,
      after: query.after,
      offset: query.offset,
    });
    const page = records.slice(0, query.limit);
    const more = records.length > query.limit;
    return {
      data: page.map(recordSummary),
      page: {
        limit: query.limit,
        offset: query.offset,
        next: more ? query.offset + query.limit : null,
        nextAfter: more ? page[page.length - 1].id : null,
      },
    };
  }

  /** `GET /judgment/records/:id` — the Evidence as the Engine saw it, the answers, the Outcome, the Provenance. */
  @Get('records/:id')
  @UseGuards(CanViewRecordsGuard)
  async show(@Param() params: RecordIdParams): Promise<RecordDetail> {
    return recordDetail(await this.find(params.id));
  }

  /** `POST /judgment/records/:id/resolve` with `{ "resolution": "approve" }` — only for who may view records. */
  @Post('records/:id/resolve')
  @HttpCode(200)
  @UseGuards(CanViewRecordsGuard, JsonBodyGuard)
  async resolve(
    @Param() params: RecordIdParams,
    @Body() body: ResolveReviewDto,
    @Req() request: JudgmentHttpRequest,
  ): Promise<RecordDetail> {
    const reviewer = await requestReviewer(this.options, request);
    const record = await this.find(params.id);
    return recordDetail(await this.records.resolve(record, body.resolution, reviewer));
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

  private async find(id: number): Promise<AssessmentRecord> {
    // Above the id column's range nothing can exist (asking the database would overflow its integer).
    const record = id <= MAX_RECORD_ID ? await this.records.find(id) : null;
    if (!record) throw new NotFoundException(`Assessment record #${id} does not exist.`);
    return record;
  }
}
