import { Assessment, Decision, type Decision as DecisionContract } from 'nestjs-judgment';
import { Provenance } from 'nestjs-judgment/drivers';
import { RefundAbuse, RefundOutcome, aRefund } from '../testing/fixtures.spec-helpers';
import { COMPUTE_ONLY, applyTracedDecision } from './apply-decision';

const judgment = new RefundAbuse(aRefund({}));
const assessed = (abusive: number, credibility = [0, 0, 0.2, 0.8]) =>
  Assessment.fromAnswers(
    judgment,
    judgment.questions(),
    { abusive, credibility },
    new Provenance('jev', 'jev-1.13.0'),
    COMPUTE_ONLY,
  );

@Decision({ outcomes: RefundOutcome, name: 'thresholded-refund' })
class Thresholded implements DecisionContract<RefundAbuse, RefundOutcome> {
  readonly thresholds = { reject: 0.65, escalate: 0.3 };
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(this.thresholds.reject) && assessment.rating('credibility').below(1.5)) {
      return RefundOutcome.Reject;
    }
    if (abusive.above(this.thresholds.escalate)) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}

@Decision({ outcomes: RefundOutcome, name: 'throws-midway' })
class ThrowsMidway implements DecisionContract<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    if (assessment.likelihood('abusive').above(0.1)) throw new Error('the Decision broke');
    return RefundOutcome.Approve;
  }
}

describe('Decision trace', () => {
  it('records each comparison with its named threshold and margin, and the arm that fired', () => {
    const { outcome, trace } = applyTracedDecision(assessed(0.45), new Thresholded(), false);
    expect(outcome).toBe(RefundOutcome.Escalate);
    expect(trace).toMatchObject({
      decision: 'thresholded-refund',
      outcome: 'escalate',
      reads: [{ key: 'abusive', kind: 'likelihood', value: 0.45 }],
      comparisons: [
        { key: 'abusive', op: 'above', value: 0.45, threshold: 0.65, thresholdName: 'reject', margin: -0.2 },
        { key: 'abusive', op: 'above', value: 0.45, threshold: 0.3, thresholdName: 'escalate', margin: 0.15 },
      ],
      rule: { comparisons: [1], text: 'abusive ≥ escalate (0.3)' },
    });
    expect(trace.comparisons.map((c) => c.result)).toEqual([false, true]);
  });

  it('names every condition of a fired && arm, and an undeclared threshold by its value', () => {
    const { outcome, trace } = applyTracedDecision(assessed(0.9, [0.6, 0.4, 0, 0]), new Thresholded(), false);
    expect(outcome).toBe(RefundOutcome.Reject);
    expect(trace.rule).toEqual({ comparisons: [0, 1], text: 'abusive ≥ reject (0.65) and credibility < 1.5' });
    expect(trace.comparisons[1]).toMatchObject({ key: 'credibility', thresholdName: null, margin: -1.1 });
    expect(trace.reads.map((r) => r.key)).toEqual(['abusive', 'credibility']);
  });

  it('calls the fall-through arm "otherwise" when the last comparison did not hold', () => {
    const { outcome, trace } = applyTracedDecision(assessed(0.1), new Thresholded(), false);
    expect(outcome).toBe(RefundOutcome.Approve);
    expect(trace.rule).toEqual({ comparisons: [], text: 'otherwise (no tested condition held)' });
    expect(trace.comparisons).toHaveLength(2);
  });

  it('records the first run only when purity is checked', () => {
    const { trace } = applyTracedDecision(assessed(0.45), new Thresholded(), true);
    expect(trace.comparisons).toHaveLength(2);
  });

  it("reports a Decision's own error and leaves no readings behind for the next decision", () => {
    expect(() => applyTracedDecision(assessed(0.45), new ThrowsMidway(), false)).toThrow('the Decision broke');
    const { trace } = applyTracedDecision(assessed(0.1), new Thresholded(), false);
    expect(trace.comparisons).toHaveLength(2);
    expect(trace.reads).toHaveLength(1);
  });

  it('records nothing for comparisons made outside decide()', () => {
    const assessment = assessed(0.45);
    expect(assessment.likelihood('abusive').above(0.3)).toBe(true);
    const { trace } = applyTracedDecision(assessment, new Thresholded(), false);
    expect(trace.comparisons).toHaveLength(2);
  });
});
