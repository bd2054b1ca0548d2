import { Classification, Evidence, Judgment, Likelihood, Rating } from 'nestjs-judgment';
import { TicketRoutingDecision } from './ticket-routing.decision';
import { Department } from './department';
import { Ticket } from './ticket.entity';

/** Which team should handle this ticket, and how severe is the customer's problem? */
@Judgment({ name: 'ticket-routing', decision: () => TicketRoutingDecision })
export class TicketRouting implements Judgment {
  constructor(readonly ticket: Ticket) {}

  evidence() {
    return {
      ticket: { subject: Evidence.untrusted(this.ticket.subject), body: Evidence.untrusted(this.ticket.body) },
    };
  }

  questions() {
    const departments: Record<Department, string> = {
      [Department.Billing]: 'Invoices, payments, charges and refunds',
      [Department.Technical]: 'Errors, outages and features that do not work',
      [Department.Account]: 'Sign-in, passwords, profile and account access',
    };
    return {
      // Guards the Rating: a ticket without a problem still gets a severity, so the Decision reads it only when likely.
      problem: Likelihood.that('Does the customer describe a problem they need help with?'),
      department: Classification.of('Which team should handle the request in ticket.body?', departments).orNone(),
      severity: Rating.of('How severe is the problem the customer describes?', [
        'Cosmetic',
        'Minor',
        'Major',
        'Critical',
      ]),
    };
  }
}
