import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
  UseFilters,
  UsePipes,
} from '@nestjs/common';
import { JudgmentHttpExceptionFilter, judgmentValidationPipe } from 'nestjs-judgment/http';
import { CreateOptionsQuery } from '../common/create-options.query';
import { judgedView } from '../common/judged';
import { CreateRefundDto } from './create-refund.dto';
import { RefundsService } from './refunds.service';

/** Refund requests over HTTP; errors use the package's envelope `{ error: { code, message, details } }`. */
@Controller('refunds')
@UseFilters(JudgmentHttpExceptionFilter)
@UsePipes(judgmentValidationPipe())
export class RefundsController {
  constructor(private readonly refunds: RefundsService) {}

  /**
   * Creates the refund and assesses it synchronously: the response carries the Outcome, and the Actions already ran.
   * With `?dispatch=true` the assessment is queued instead and the response carries the job id.
   */
  @Post()
  async create(@Body() input: CreateRefundDto, @Query() options: CreateOptionsQuery) {
    const refund = await this.refunds.create(input);
    if (options.queued) {
      const jobId = await this.refunds.dispatch(refund);
      return { refund: await this.refunds.find(refund.id), jobId };
    }
    const { assessment, decided } = await this.refunds.assess(refund);
    return { refund: await this.refunds.find(refund.id), ...judgedView(assessment, decided) };
  }

  /** Queues (again) the assessment of an existing refund, e.g. after an Unassessed attempt. */
  @Post(':id/dispatch')
  @HttpCode(202)
  async dispatch(@Param('id', ParseIntPipe) id: number) {
    const jobId = await this.refunds.dispatch(await this.refunds.find(id));
    return { refund: await this.refunds.find(id), jobId };
  }

  @Get(':id')
  async show(@Param('id', ParseIntPipe) id: number) {
    return { refund: await this.refunds.find(id) };
  }
}
