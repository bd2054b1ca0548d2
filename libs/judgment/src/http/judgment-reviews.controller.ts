import {
  Body,
  Controller,
  ForbiddenException,
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
import { type RecordDetail, type RecordSummary, recordDetail, recordSummary } from './record.view';
import { ListReviewsQuery, RecordIdParams, ResolveReviewDto } from './review.dto';
import { judgmentValidationPipe } from './validation';

/** The largest record id: the id column is a 32-bit integer. */
const MAX_RECORD_ID = 2 ** 31 - 1;

/** One page of the Review list; `next` is the offset of the next page, or null on the last one. */
export interface ReviewPage {
  readonly data: RecordSummary[];
  readonly page: { readonly limit: number; readonly offset: number; readonly next: number | null };
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

  /** `GET /judgment/reviews?limit=20&offset=0&judgment=refund-abuse` — oldest first. */
  @Get('reviews')
  @UseGuards(CanViewRecordsGuard)
  async list(@Query() query: ListReviewsQuery): Promise<ReviewPage> {
    const records = await this.records.awaitingReview({
      judgment: query.judgment,
      limit: query.limit + 1,
      offset: query.offset,
    });
    const more = records.length > query.limit;
    return {
      data: records.slice(0, query.limit).map(recordSummary),
      page: { limit: query.limit, offset: query.offset, next: more ? query.offset + query.limit : null },
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
    const reviewer = await (this.options.reviewerFrom ?? defaultReviewer)(request);
    if (reviewer === null || reviewer === undefined) {
      throw new ForbiddenException(
        'The request names no reviewer: authenticate it, or tell JudgmentHttpModule how to find the reviewer ' +
          'with the reviewerFrom(request) option.',
      );
    }
    const record = await this.find(params.id);
    return recordDetail(await this.records.resolve(record, body.resolution, reviewer));
  }

  private async find(id: number): Promise<AssessmentRecord> {
    // Above the id column's range nothing can exist (asking the database would overflow its integer).
    const record = id <= MAX_RECORD_ID ? await this.records.find(id) : null;
    if (!record) throw new NotFoundException(`Assessment record #${id} does not exist.`);
    return record;
  }
}

/** Without reviewerFrom: the authenticated user (Passport's `request.user`), if any. */
function defaultReviewer(request: JudgmentHttpRequest) {
  return (request.user ?? null) as ReturnType<NonNullable<JudgmentHttpOptions['reviewerFrom']>>;
}
