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
import { type AuditSummary, type RecordDetail, auditSummary, recordDetail } from '../records/record.view';
import { CanViewRecordsGuard } from './can-view.guard';
import { JsonBodyGuard } from './json-body.guard';
import { JudgmentHttpExceptionFilter } from './judgment-http-exception.filter';
import { JUDGMENT_HTTP_OPTIONS } from './judgment-http.module-definition';
import type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';
import { findRecord } from './record-lookup';
import { type RecordPage, pageFilter, recordPage } from './record-page';
import { ListRecordsQuery, RecordIdParams, ResolveReviewDto } from './review.dto';
import { requestReviewer } from './reviewer-from';
import { judgmentValidationPipe } from './validation';

/** One page of the audit list (see RecordPage). */
export type AuditPage = RecordPage<AuditSummary>;

/**
 * Audits over HTTP, apart from Reviews: the automatic Outcomes sampled for an audit (they stood and their Actions
 * ran) and the auditor's verdict. Same guards as the Review routes: reading needs `canView`, resolving a reviewer
 * (`reviewerFrom`) whom the ResolutionPolicy allows; errors in the envelope.
 */
@Controller('judgment')
@UseFilters(JudgmentHttpExceptionFilter)
@UsePipes(judgmentValidationPipe())
export class JudgmentAuditsController {
  constructor(
    @Inject(JUDGMENT_HTTP_OPTIONS) private readonly options: JudgmentHttpOptions,
    private readonly records: AssessmentRecords,
  ) {}

  /** `GET /judgment/audits?limit=20&after=0&judgment=refund-abuse` — audits not yet resolved, oldest first. */
  @Get('audits')
  @UseGuards(CanViewRecordsGuard)
  async list(@Query() query: ListRecordsQuery): Promise<AuditPage> {
    return recordPage(await this.records.awaitingAudit(pageFilter(query)), query, auditSummary);
  }

  /**
   * `POST /judgment/records/:id/audit` with `{ "resolution": "approve" }` — the Outcome the auditor would have chosen
   * (the automatic one when it was right). Race-safe: of concurrent auditors one wins, the others get 409 `conflict`,
   * as does a record not sampled for an audit or already audited. The automatic Outcome is left standing.
   */
  @Post('records/:id/audit')
  @HttpCode(200)
  @UseGuards(CanViewRecordsGuard, JsonBodyGuard)
  async resolve(
    @Param() params: RecordIdParams,
    @Body() body: ResolveReviewDto,
    @Req() request: JudgmentHttpRequest,
  ): Promise<RecordDetail> {
    const reviewer = await requestReviewer(this.options, request);
    const record = await findRecord(this.records, params.id);
    return recordDetail(await this.records.resolveAudit(record, body.resolution, reviewer));
  }
}
