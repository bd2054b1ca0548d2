import { Assessment, AwaitingReview, Decision, type Decision as DecisionContract } from 'nestjs-judgment';
import { Provenance } from 'nestjs-judgment/drivers';
import { fakeAssessment, ImpureDecision, InvalidDecision, NoDefaultDecision } from 'nestjs-judgment/testing';
import {
  RefundAbuse,
  RefundDecision,
  RefundOutcome,
  StrictRefundDecision,
  SupportTicket,
  aRefund,
  aTicket,
} from '../testing/fixtures.spec-helpers';
import { COMPUTE_ONLY } from '../decision/apply-decision';
import type { DecisionRecording } from './assessment';

const refundAbuse = (refundsThisYear = 0) => new RefundAbuse(aRefund({ refundsThisYear }));

/** An Assessment as an Engine would give it (compute-only unless a recording is given). */
const assessed = (
  abusive: number,
  credibility = [0, 0, 0.2, 0.8],
  judgment = refundAbuse(),
  recording: DecisionRecording = COMPUTE_ONLY,
) =>
  Assessment.fromAnswers(
    judgment,
    judgment.questions(),
    { abusive, credibility },
    new Provenance('jev', 'jev-1.13.0'),
    recording,
  );

/** What deciding resolves to when the Decision gives a Review Outcome: the case awaits Review, with the rule. */
const inReview = (outcome: RefundOutcome, rule: string) =>
  new AwaitingReview(
    outcome,
    { cause: 'band', text: `RefundDecision decided "${outcome}", one of its Review Outcomes, by the rule: ${rule}.` },
    null,
  );

/** A Decision whose Outcome flips on every call (it keeps state of its own). */
@Decision({ outcomes: RefundOutcome, name: 'flip-flop' })
class FlipFlop implements DecisionContract<RefundAbuse, RefundOutcome> {
  calls = 0;
  decide(): RefundOutcome {
    this.calls += 1;
    return this.calls % 2 === 1 ? RefundOutcome.Approve : RefundOutcome.Reject;
  }
}

/** A pure Decision that counts its calls. */
@Decision({ outcomes: RefundOutcome })
class Counting implements DecisionContract<RefundAbuse, RefundOutcome> {
  calls = 0;
  decide(): RefundOutcome {
    this.calls += 1;
    return RefundOutcome.Approve;
  }
}

describe('Deciding an Assessment', () => {
  it("outcome() applies the Judgment's default Decision", async () => {
    await expect(assessed(0.8).outcome()).resolves.toBe(RefundOutcome.Reject);
    await expect(assessed(0.4).outcome()).resolves.toEqual(inReview(RefundOutcome.Escalate, 'abusive ≥ 0.3'));
    await expect(assessed(0.1).outcome()).resolves.toBe(RefundOutcome.Approve);
    await expect(assessed(0.1, [0.7, 0.3, 0, 0]).outcome()).resolves.toMatchObject({ outcome: RefundOutcome.Escalate });
  });

  it('the Decision reads facts from the Judgment it is given', async () => {
    await expect(assessed(0.1, undefined, refundAbuse(3)).outcome()).resolves.toEqual(
      inReview(RefundOutcome.Escalate, 'otherwise (no tested condition held)'),
    );
  });

  it('decide(other) applies another Decision', async () => {
    const assessment = assessed(0.2);
    await expect(assessment.outcome()).resolves.toBe(RefundOutcome.Approve);
    await expect(assessment.decide(new StrictRefundDecision())).resolves.toBe(RefundOutcome.Reject);
  });

  it('outcome() without a default Decision fails with NoDefaultDecision', async () => {
    const ticket = new SupportTicket(aTicket());
    const assessment = fakeAssessment(ticket).likelihood('urgent', 0.5).make();
    await expect(assessment.outcome()).rejects.toThrow(NoDefaultDecision);
    await expect(assessment.outcome()).rejects.toThrow(/SupportTicket names no default Decision/);
  });

  it.each<[string, unknown]>([
    ['a plain object', {}],
    ['null', null],
    ['a Decision class instead of an instance', RefundDecision],
    ['an object whose decide is not a function', { decide: 'reject' }],
  ])('InvalidDecision: an object without decide() — %s', async (_, decision) => {
    await expect(assessed(0.5).decide(decision as never)).rejects.toThrow(InvalidDecision);
  });

  it('InvalidDecision: an instance of a class not declared with @Decision()', async () => {
    class Undeclared {
      decide = () => RefundOutcome.Approve;
    }
    await expect(assessed(0.5).decide(new Undeclared())).rejects.toThrow(InvalidDecision);
    await expect(assessed(0.5).decide(new Undeclared())).rejects.toThrow(/Undeclared is not a Decision/);
  });

  it('InvalidDecision: decide() returning a Promise', async () => {
    @Decision({ outcomes: RefundOutcome })
    class Async {
      decide = async () => RefundOutcome.Approve;
    }
    await expect(assessed(0.5).decide(new Async() as never)).rejects.toThrow(InvalidDecision);
    await expect(assessed(0.5).decide(new Async() as never)).rejects.toThrow(/Async\.decide\(\) returned a Promise/);
  });

  it('InvalidDecision: decide() returning a value outside its Outcome enum', async () => {
    @Decision({ outcomes: RefundOutcome })
    class Loose {
      decide = () => 'refund' as RefundOutcome;
    }
    await expect(assessed(0.5).decide(new Loose())).rejects.toThrow(InvalidDecision);
    await expect(assessed(0.5).decide(new Loose())).rejects.toThrow(
      /Loose\.decide\(\) returned "refund", which is not one of its outcomes \("approve", "escalate", "reject"\)/,
    );
  });

  it("ImpureDecision names both Outcomes when a fake-made Assessment's Decision is impure", async () => {
    const assessment = fakeAssessment(refundAbuse()).likelihood('abusive', 0.5).make();
    await expect(assessment.decide(new FlipFlop())).rejects.toThrow(ImpureDecision);
    await expect(assessment.decide(new FlipFlop())).rejects.toThrow(
      'flip-flop returned "approve" and then "reject" for the same Assessment.',
    );
  });

  it('a fake-made Assessment runs its Decision twice', async () => {
    const decision = new Counting();
    await expect(fakeAssessment(refundAbuse()).make().decide(decision)).resolves.toBe(RefundOutcome.Approve);
    expect(decision.calls).toBe(2);
  });

  it('an Assessment built with Assessment.fromAnswers (not fake) runs the Decision exactly once', async () => {
    const counting = new Counting();
    await assessed(0.5).decide(counting);
    expect(counting.calls).toBe(1);
    await expect(assessed(0.5).decide(new FlipFlop())).resolves.toBe(RefundOutcome.Approve);
  });

  it('an Assessment made with a recording hands the decision to it', async () => {
    const decide = jest.fn(async () => RefundOutcome.Escalate) as DecisionRecording['decide'];
    const assessment = assessed(0.8, undefined, undefined, { ...COMPUTE_ONLY, decide });
    const decision = new RefundDecision();
    await expect(assessment.decide(decision)).resolves.toBe(RefundOutcome.Escalate);
    expect(decide).toHaveBeenCalledTimes(1);
    expect(decide).toHaveBeenCalledWith(assessment, decision);
  });

  it('an Assessment made with a recording gets its default Decision from it', async () => {
    const decisionOf = jest.fn(() => new StrictRefundDecision());
    const assessment = assessed(0.8, undefined, undefined, { ...COMPUTE_ONLY, decisionOf });
    await expect(assessment.outcome()).resolves.toBe(RefundOutcome.Reject);
    expect(decisionOf).toHaveBeenCalledWith(RefundDecision);
  });

  it('deciding a compute-only Assessment records nothing: it just returns the Outcome', async () => {
    const decide = jest.fn(COMPUTE_ONLY.decide) as DecisionRecording['decide'];
    const linked = assessed(0.8, undefined, undefined, { ...COMPUTE_ONLY, decide });
    const unlinked = assessed(0.8);
    const fake = fakeAssessment(refundAbuse()).likelihood('abusive', 0.8).rating('credibility', 3).make();
    await expect(unlinked.decide(new RefundDecision())).resolves.toBe(RefundOutcome.Reject);
    await expect(fake.outcome()).resolves.toBe(RefundOutcome.Reject);
    await expect(linked.decide(new RefundDecision())).resolves.toBe(RefundOutcome.Reject);
    // Only the Assessment made with a recording reached it.
    expect(decide).toHaveBeenCalledTimes(1);
    expect(decide).toHaveBeenCalledWith(linked, expect.any(RefundDecision));
  });

  it('a numeric Outcome enum works', async () => {
    enum Score {
      Low,
      High,
    }
    @Decision({ outcomes: Score, review: [Score.High] })
    class Scorer {
      decide(assessment: Assessment<RefundAbuse>): Score {
        return assessment.likelihood('abusive').above(0.5) ? Score.High : Score.Low;
      }
    }
    await expect(assessed(0.8).decide(new Scorer())).resolves.toMatchObject({ outcome: Score.High });
    await expect(assessed(0.2).decide(new Scorer())).resolves.toBe(Score.Low);
  });
});
