import { Evidence, Judgment, Likelihood, Rating } from 'nestjs-judgment';
import { RefundDecision } from './refund.decision';
import { Refund } from './refund.entity';

/** Is this refund request an attempt to abuse the refund policy, and how credible is its explanation? */
@Judgment<Refund>({
  name: 'refund-abuse',
  decision: () => RefundDecision,
  // The review queue's one-line summary of a case.
  reviewSummary: (refund) => `${refund.item}, €${refund.amountEur}: ${refund.explanation}`,
})
export class RefundAbuse implements Judgment {
  constructor(readonly refund: Refund) {}

  evidence() {
    return {
      order: { item: this.refund.item, amount_eur: this.refund.amountEur },
      request: { explanation: Evidence.untrusted(this.refund.explanation) },
    };
  }

  questions() {
    return {
      abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?').means({
        true: 'Likely a claim the customer is not entitled to',
        false: 'A good-faith claim',
      }),
      credibility: Rating.of('How credible is the explanation in request.explanation?', [
        'Not credible',
        'Doubtful',
        'Plausible',
        'Fully credible',
      ]),
    };
  }

  language() {
    return this.refund.locale;
  }
}
