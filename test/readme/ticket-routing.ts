import { type Assessment, Classification, Decision, Evidence, Judgment, Rating } from 'nestjs-judgment';

export enum Team {
  Billing = 'billing',
  Technical = 'technical',
  Account = 'account',
}

export enum Route {
  Billing = 'billing',
  Technical = 'technical',
  Account = 'account',
  Triage = 'triage',
}

const ROUTES: Record<Team, Route> = {
  [Team.Billing]: Route.Billing,
  [Team.Technical]: Route.Technical,
  [Team.Account]: Route.Account,
};

@Decision({ outcomes: Route, review: [Route.Triage], version: '1' })
export class RouteTicket implements Decision<TicketRouting, Route> {
  decide(assessment: Assessment<TicketRouting>): Route {
    const team = assessment.classification('team');
    const split = team.confidence < 0.25; // two teams nearly tied
    const urgent = assessment.rating('severity').above(2.5);

    if (team.label === null) return Route.Triage; // the escape option won: no team fits
    if (split) return Route.Triage;
    if (urgent) return Route.Triage;
    return ROUTES[team.label];
  }
}

@Judgment({ name: 'ticket-routing', decision: () => RouteTicket, cacheFor: 3600 })
export class TicketRouting implements Judgment {
  constructor(readonly ticket: { subject: string; body: string }) {}

  evidence() {
    return { ticket: { subject: Evidence.untrusted(this.ticket.subject), body: Evidence.untrusted(this.ticket.body) } };
  }

  questions() {
    const teams: Record<Team, string> = {
      [Team.Billing]: 'Invoices, payments and refunds',
      [Team.Technical]: 'Errors, outages and features that do not work',
      [Team.Account]: 'Sign-in, passwords and profile',
    };
    return {
      team: Classification.of('Which team should handle the request in ticket.body?', teams).orNone(),
      severity: Rating.of('How severe is the problem the customer describes?', [
        'Cosmetic',
        'Minor',
        'Major',
        'Critical',
      ]),
    };
  }
}
