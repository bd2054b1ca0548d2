import { fakeAssessment } from 'nestjs-judgment/testing';
import { RefundAbuse, RefundDecision, RefundOutcome } from './refund-abuse.judgment';

describe('RefundDecision', () => {
  const refund = new RefundAbuse('The parcel arrived empty.', 120);
  const decision = new RefundDecision();

  it('approves a credible request in good faith', async () => {
    const assessment = fakeAssessment(refund).likelihood('abusive', 0.1).rating('credibility', 3).make();
    expect(await assessment.decide(decision)).toBe(RefundOutcome.Approve);
  });

  it('escalates a doubtful explanation for Review', async () => {
    const assessment = fakeAssessment(refund).likelihood('abusive', 0.1).rating('credibility', 1).make();
    // A Review Outcome comes back as a case awaiting Review, with the reason.
    expect(await assessment.decide(decision)).toMatchObject({
      outcome: RefundOutcome.Escalate,
      reason: { cause: 'band' },
    });
  });

  it('rejects a likely abuse whatever the explanation', async () => {
    const assessment = fakeAssessment(refund).likelihood('abusive', 0.9).rating('credibility', 3).make();
    expect(await assessment.decide(decision)).toBe(RefundOutcome.Reject);
  });
});
