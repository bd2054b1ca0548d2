import { type Assessment, Decision, Evidence, Judgment, Likelihood, Rating } from 'nestjs-judgment';

export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], version: 1 })
export class RefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.8)) return RefundOutcome.Reject;
    if (abusive.above(0.4) || assessment.rating('credibility').below(1.5)) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}

@Judgment({ name: 'refund-abuse', decision: () => RefundDecision })
export class RefundAbuse implements Judgment {
  constructor(
    readonly explanation: string,
    readonly amount: number,
  ) {}

  evidence() {
    return { refund: { amount_eur: this.amount, explanation: Evidence.untrusted(this.explanation) } };
  }

  questions() {
    return {
      abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?'),
      credibility: Rating.of('How credible is refund.explanation?', [
        'Not credible',
        'Doubtful',
        'Plausible',
        'Fully credible',
      ]),
    };
  }
}
