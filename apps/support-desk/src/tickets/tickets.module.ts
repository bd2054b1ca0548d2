import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JudgmentModule } from 'nestjs-judgment';
import { TicketActions } from './ticket-actions.listener';
import { TicketRouting } from './ticket-routing.judgment';
import { Ticket } from './ticket.entity';
import { TicketsController } from './tickets.controller';
import { TicketsService } from './tickets.service';

/** Support tickets: the TicketRouting Judgment, its Decision, the HTTP API and the routing Action. */
@Module({
  imports: [TypeOrmModule.forFeature([Ticket]), JudgmentModule.forFeature([TicketRouting])],
  controllers: [TicketsController],
  providers: [TicketsService, TicketActions],
  exports: [TicketsService],
})
export class TicketsModule {}
