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
import { CreateTicketDto } from './create-ticket.dto';
import { TicketsService } from './tickets.service';

/** Support tickets over HTTP. */
@Controller('tickets')
@UseFilters(JudgmentHttpExceptionFilter)
@UsePipes(judgmentValidationPipe())
export class TicketsController {
  constructor(private readonly tickets: TicketsService) {}

  /**
   * Creates the ticket and assesses it synchronously: the response carries the Outcome, and the Actions already ran.
   * With `?dispatch=true` the assessment is queued instead and the response carries the job id.
   */
  @Post()
  async create(@Body() input: CreateTicketDto, @Query() options: CreateOptionsQuery) {
    const ticket = await this.tickets.create(input);
    if (options.queued) {
      const jobId = await this.tickets.dispatch(ticket);
      return { ticket: await this.tickets.find(ticket.id), jobId };
    }
    const { assessment, decided } = await this.tickets.assess(ticket);
    return { ticket: await this.tickets.find(ticket.id), ...judgedView(assessment, decided) };
  }

  /** Queues (again) the assessment of an existing ticket, e.g. after an Unassessed attempt. */
  @Post(':id/dispatch')
  @HttpCode(202)
  async dispatch(@Param('id', ParseIntPipe) id: number) {
    const jobId = await this.tickets.dispatch(await this.tickets.find(id));
    return { ticket: await this.tickets.find(id), jobId };
  }

  @Get(':id')
  async show(@Param('id', ParseIntPipe) id: number) {
    return { ticket: await this.tickets.find(id) };
  }
}
