import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type Assessment, type Decided, Judge } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import type { CreateTicketDto } from './create-ticket.dto';
import type { TicketOutcome } from './ticket-routing.decision';
import { TicketRouting } from './ticket-routing.judgment';
import { Ticket } from './ticket.entity';

/** Support tickets: create, route inline, or dispatch the routing to the queue. */
@Injectable()
export class TicketsService {
  constructor(
    @InjectRepository(Ticket) private readonly tickets: Repository<Ticket>,
    private readonly judge: Judge,
  ) {}

  create(input: CreateTicketDto): Promise<Ticket> {
    return this.tickets.save(this.tickets.create(input));
  }

  async find(id: number): Promise<Ticket> {
    const ticket = await this.tickets.findOneBy({ id });
    if (!ticket) throw new NotFoundException(`Ticket #${id} does not exist.`);
    return ticket;
  }

  async assess(ticket: Ticket): Promise<{ assessment: Assessment<TicketRouting>; decided: Decided<TicketOutcome> }> {
    const assessment = await this.judge.assess(new TicketRouting(ticket));
    return { assessment, decided: await assessment.outcome<TicketOutcome>() };
  }

  dispatch(ticket: Ticket): Promise<string> {
    return this.judge.dispatch(new TicketRouting(ticket));
  }
}
