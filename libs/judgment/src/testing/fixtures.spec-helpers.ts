// Shared fixture Judgments and Decisions for the library's unit tests. Not exported from any entry point.
import { type Assessment, Classification, Decision, Evidence, Judgment, Likelihood, Rating } from 'nestjs-judgment';
import { Provenance } from 'nestjs-judgment/drivers';

// ---------------------------------------------------------------------------------------------------------------
// RefundAbuse: a Likelihood (with .means) and a Rating; default Decision given as a thunk (declared below it).

export interface Refund {
  item: string;
  amount: number;
  explanation: string;
  refundsThisYear: number;
}

export const aRefund = (overrides: Partial<Refund> = {}): Refund => ({
  item: 'Headphones',
  amount: 89.9,
  explanation: 'They arrived broken.',
  refundsThisYear: 0,
  ...overrides,
});

export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

export const CREDIBILITY_LEVELS = ['Not credible', 'Doubtful', 'Plausible', 'Fully credible'];

@Judgment({ name: 'refund-abuse', decision: () => RefundDecision, cacheFor: 3600, engine: 'jev' })
export class RefundAbuse implements Judgment {
  constructor(readonly refund: Refund) {}

  evidence() {
    return {
      order: { item: this.refund.item, amount_eur: this.refund.amount },
      request: { explanation: Evidence.untrusted(this.refund.explanation) },
    };
  }

  questions() {
    return {
      abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?').means({
        true: 'Likely a claim the customer is not entitled to',
        false: 'A good-faith claim',
      }),
      credibility: Rating.of('How credible is the explanation in request.explanation?', CREDIBILITY_LEVELS),
    };
  }
}

@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], version: '2' })
export class RefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>, judgment: RefundAbuse): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    const doubtful = assessment.rating('credibility').below(2.0);
    const frequent = judgment.refund.refundsThisYear >= 3;
    if (abusive.above(0.65)) return RefundOutcome.Reject;
    if (abusive.above(0.3)) return RefundOutcome.Escalate;
    if (doubtful || frequent) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}

/** Another Decision over RefundAbuse, for decide(other). */
@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], name: 'strict-refund' })
export class StrictRefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    return assessment.likelihood('abusive').above(0.1) ? RefundOutcome.Reject : RefundOutcome.Approve;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// SupportTicket: a Classification from a string enum + .orNone(), one from a label → description map, a Likelihood
// Set from a Record<Enum, string>, and a plain Likelihood. No default Decision.

export enum Department {
  Billing = 'billing',
  Technical = 'technical',
  Sales = 'sales',
}

export enum Harm {
  Spam = 'spam',
  Abuse = 'abuse',
  Phishing = 'phishing',
}

export const HARM_QUESTIONS: Record<Harm, string> = {
  [Harm.Spam]: 'Is the message unsolicited advertising?',
  [Harm.Abuse]: 'Does the message insult or threaten anyone?',
  [Harm.Phishing]: 'Does the message try to obtain credentials or payment details?',
};

export interface Ticket {
  subject: string;
  body: string;
}

@Judgment()
export class SupportTicket implements Judgment {
  constructor(readonly ticket: Ticket) {}

  evidence() {
    return { ticket: { subject: this.ticket.subject, body: Evidence.untrusted(this.ticket.body) } };
  }

  questions() {
    return {
      department: Classification.of('Which team should handle this ticket?', Object.values(Department)).orNone(),
      language: Classification.of('Which language is the ticket written in?', {
        english: 'Mostly English',
        italian: 'Mostly Italian',
        other: null,
      }),
      harms: Likelihood.each(HARM_QUESTIONS),
      urgent: Likelihood.that('Does the customer report an outage that stops their work?'),
    };
  }
}

export enum Route {
  Billing = 'billing',
  Technical = 'technical',
  Sales = 'sales',
  Triage = 'triage',
}

@Decision({ outcomes: Route, review: [Route.Triage], version: 1 })
export class RouteTicket implements Decision<SupportTicket, Route> {
  decide(assessment: Assessment<SupportTicket>): Route {
    const department = assessment.classification('department');
    if (department.label === null || department.confidence < 0.3) return Route.Triage;
    return department.label as string as Route;
  }
}

export const aTicket = (overrides: Partial<Ticket> = {}): Ticket => ({
  subject: 'Invoice twice',
  body: 'I was charged twice for March.',
  ...overrides,
});

/** The Provenance a real Engine would give. */
export const jevProvenance = () =>
  new Provenance('jev', 'jev-1.13.0', 'req_123', { usage: { input_tokens: 812 }, confidence: { abusive: 0.7 } });
