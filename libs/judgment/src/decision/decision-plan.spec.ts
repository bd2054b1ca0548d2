import { type DecisionPlanInput, type GuardFinding, planDecision } from './decision-plan';

enum Outcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

const decision = { name: 'RefundDecision', review: new Set<string>([Outcome.Escalate]) };
const drift = (sendsToReview: boolean): GuardFinding => ({
  cause: 'drift',
  text: 'Calibration drift: the Engine answered with the model gpt-4o-2099-01-01',
  sendsToReview,
});
const collapse: GuardFinding = {
  cause: 'collapse',
  text: 'Signal collapsed: 100 % of answers above 0.999',
  sendsToReview: true,
};

const plan = (input: Partial<DecisionPlanInput>) =>
  planDecision({
    outcome: Outcome.Approve,
    decision,
    rule: 'otherwise (no tested condition held)',
    findings: [],
    inReview: null,
    audit: null,
    ...input,
  });

describe('the decision plan', () => {
  it('an automatic Outcome with no finding acts, unaudited without an audit rule', () => {
    expect(plan({})).toEqual({ route: 'act', audit: false });
  });

  it('a Review Outcome enters Review with the band cause, naming the Decision, the Outcome and the rule', () => {
    expect(plan({ outcome: Outcome.Escalate, rule: 'abusive ≥ 0.3' })).toEqual({
      route: 'review',
      enters: true,
      reason: {
        cause: 'band',
        text: 'RefundDecision decided "escalate", one of its Review Outcomes, by the rule: abusive ≥ 0.3.',
      },
    });
  });

  it("a finding whose policy is 'review' sends an automatic Outcome to Review under its cause", () => {
    expect(plan({ findings: [drift(true)] })).toEqual({
      route: 'review',
      enters: true,
      reason: { cause: 'drift', text: drift(true).text },
    });
    expect(plan({ findings: [collapse] })).toMatchObject({ route: 'review', reason: { cause: 'collapse' } });
  });

  it("a finding whose policy is 'warn' lets the Outcome act", () => {
    expect(plan({ findings: [drift(false)] })).toEqual({ route: 'act', audit: false });
  });

  it('the first finding that sends to Review names the cause', () => {
    expect(plan({ findings: [drift(false), collapse, drift(true)] })).toMatchObject({ reason: { cause: 'collapse' } });
  });

  it('a Review Outcome goes to Review as a band case even when a guard found drift', () => {
    expect(plan({ outcome: Outcome.Escalate, findings: [drift(true)] })).toMatchObject({ reason: { cause: 'band' } });
  });

  it('a case already in Review stays there with its first reason, entering nothing new, whatever is decided now', () => {
    const first = { cause: 'drift' as const, text: 'Calibration drift: …' };
    for (const outcome of [Outcome.Approve, Outcome.Escalate, Outcome.Reject]) {
      expect(plan({ outcome, inReview: first, findings: [collapse] })).toEqual({
        route: 'review',
        reason: first,
        enters: false,
      });
    }
  });

  it('an automatic Outcome that acts is audited when the draw falls under the rate', () => {
    expect(plan({ audit: { rate: 0.02, draw: 0.019 } })).toEqual({ route: 'act', audit: true });
    expect(plan({ audit: { rate: 0.02, draw: 0.02 } })).toEqual({ route: 'act', audit: false });
    expect(plan({ audit: { rate: 0, draw: 0 } })).toEqual({ route: 'act', audit: false });
    expect(plan({ audit: { rate: 1, draw: 0.999 } })).toEqual({ route: 'act', audit: true });
  });

  it('a case sent to Review is never audited', () => {
    const always = { rate: 1, draw: 0 };
    expect(plan({ outcome: Outcome.Escalate, audit: always })).toMatchObject({ route: 'review' });
    expect(plan({ findings: [drift(true)], audit: always })).toMatchObject({ route: 'review' });
    expect(plan({ findings: [drift(false)], audit: always })).toEqual({ route: 'act', audit: true });
  });

  it('a numeric Outcome enum is routed by value', () => {
    const numeric = { name: 'Scorer', review: new Set<number>([1]) };
    expect(
      planDecision({ outcome: 1, decision: numeric, rule: 'r', findings: [], inReview: null, audit: null }),
    ).toMatchObject({
      route: 'review',
      reason: { cause: 'band', text: 'Scorer decided 1, one of its Review Outcomes, by the rule: r.' },
    });
    expect(
      planDecision({ outcome: 0, decision: numeric, rule: 'r', findings: [], inReview: null, audit: null }),
    ).toEqual({ route: 'act', audit: false });
  });

  describe('in an escalation cascade', () => {
    const next = { tier: 2, connection: 'strong' };

    it('a Review Outcome with a tier after it escalates to that tier instead of entering Review', () => {
      expect(plan({ outcome: Outcome.Escalate, rule: 'abusive ≥ 0.3', escalation: next })).toEqual({
        route: 'escalate',
        tier: 2,
        connection: 'strong',
        text:
          'RefundDecision decided "escalate", one of its Review Outcomes, by the rule: abusive ≥ 0.3; asked of ' +
          'tier 2 ("strong") instead.',
      });
    });

    it('an automatic Outcome acts at the tier that decided it; the next tier is not asked', () => {
      expect(plan({ outcome: Outcome.Reject, escalation: next })).toEqual({ route: 'act', audit: false });
      expect(plan({ outcome: Outcome.Reject, escalation: next, findings: [drift(true)] })).toMatchObject({
        route: 'review',
        reason: { cause: 'drift' },
      });
    });

    it('after the last tier (no next tier), a Review Outcome enters Review as without a cascade', () => {
      expect(plan({ outcome: Outcome.Escalate, escalation: null })).toMatchObject({
        route: 'review',
        enters: true,
        reason: { cause: 'band' },
      });
    });

    it('a case already in Review stays there rather than escalating', () => {
      const first = { cause: 'band' as const, text: 'earlier' };
      expect(plan({ outcome: Outcome.Escalate, escalation: next, inReview: first })).toEqual({
        route: 'review',
        reason: first,
        enters: false,
      });
    });
  });
});
