import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { AssessmentDecided, judgmentName, ReviewRequested, ReviewResolved } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import { transition } from '../common/transition';
import { TicketOutcome } from './ticket-routing.decision';
import { TicketRouting } from './ticket-routing.judgment';
import { Ticket, TicketStatus } from './ticket.entity';

/** Routes tickets, once: only a ticket that is still new (or in triage, for a Resolution) moves to a team. */
@Injectable()
export class TicketActions {
  private readonly logger = new Logger('SupportDesk');

  constructor(@InjectRepository(Ticket) private readonly tickets: Repository<Ticket>) {}

  @OnEvent(AssessmentDecided.NAME)
  async decided(event: AssessmentDecided): Promise<void> {
    if (!(event.judgment instanceof TicketRouting)) return;
    if (event.awaitsReview) return; // in triage: the reviewer's Resolution routes it
    await this.route(event.judgment.ticket.id, event.outcome, [TicketStatus.New]);
  }

  @OnEvent(ReviewRequested.NAME)
  async reviewRequested(event: ReviewRequested): Promise<void> {
    if (!(event.judgment instanceof TicketRouting)) return;
    await transition(this.tickets, event.judgment.ticket.id, [TicketStatus.New], TicketStatus.Triage);
  }

  @OnEvent(ReviewResolved.NAME)
  async resolved(event: ReviewResolved): Promise<void> {
    if (event.record.judgment !== judgmentName(TicketRouting) || event.record.subjectId === null) return;
    await this.route(Number(event.record.subjectId), event.resolution, [TicketStatus.New, TicketStatus.Triage]);
  }

  private async route(id: number, outcome: unknown, from: TicketStatus[]): Promise<void> {
    if (outcome === TicketOutcome.Triage || typeof outcome !== 'string') return;
    if (await transition(this.tickets, id, from, TicketStatus.Routed, { department: outcome })) {
      this.logger.log(`Ticket #${id} routed to ${outcome}.`);
    }
  }
}
