import {
  Assessment,
  Classification,
  Decision,
  type Decision as DecisionContract,
  Judgment,
  Rating,
} from 'nestjs-judgment';
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

enum Route {
  Billing = 'billing',
  Technical = 'technical',
  Triage = 'triage',
}

@Judgment({ name: 'trace-ticket-routing' })
class TicketRouting implements Judgment {
  evidence() {
    return { ticket: 'My invoice is wrong.' };
  }
  questions() {
    return {
      team: Classification.of('Which team should handle the ticket?', ['billing', 'technical']).orNone(),
      severity: Rating.of('How urgent is it?', ['low', 'normal', 'high', 'critical']),
    };
  }
}

/** The README's routing Decision: it reads the label itself (`team.label === null`), as its pattern writes it. */
@Decision({ outcomes: Route, review: [Route.Triage], name: 'trace-route-ticket' })
class RouteTicket implements DecisionContract<TicketRouting, Route> {
  decide(assessment: Assessment<TicketRouting>): Route {
    const team = assessment.classification('team');
    const urgent = assessment.rating('severity').above(2.5);
    if (team.label === null) return Route.Triage; // the escape option won: no team fits
    if (urgent) return Route.Triage;
    return team.label === 'billing' ? Route.Billing : Route.Technical;
  }
}

/** Reads the label first into nothing, tests severity (fails), then reads the label again where it decides. */
@Decision({ outcomes: Route, review: [Route.Triage], name: 'trace-label-first' })
class ReadsLabelFirst implements DecisionContract<TicketRouting, Route> {
  decide(assessment: Assessment<TicketRouting>): Route {
    const team = assessment.classification('team');
    if (team.label === 'billing') return Route.Billing;
    if (assessment.rating('severity').above(2.5)) return Route.Triage;
    if (team.label === null) return Route.Triage;
    return Route.Technical;
  }
}

/** Keeps the label in a variable, then decides on it after a test that failed. */
@Decision({ outcomes: Route, review: [Route.Triage], name: 'trace-label-variable' })
class ReadsLabelIntoVariable implements DecisionContract<TicketRouting, Route> {
  decide(assessment: Assessment<TicketRouting>): Route {
    const team = assessment.classification('team').label;
    if (assessment.rating('severity').above(2.5)) return Route.Triage;
    return team === 'billing' ? Route.Billing : Route.Technical;
  }
}

const ticket = new TicketRouting();
const routed = (team: Record<string, number>, severity = [0.7, 0.2, 0.1, 0]) =>
  Assessment.fromAnswers(
    ticket,
    ticket.questions(),
    { team, severity },
    new Provenance('jev', 'jev-1.13.0'),
    COMPUTE_ONLY,
  );

describe('Decision trace of a Classification label read by the Decision itself (issue 31)', () => {
  it('names the escape option as the rule when `label === null` fired, not "otherwise"', () => {
    const { outcome, trace } = applyTracedDecision(
      routed({ billing: 0.1, technical: 0.2, none: 0.7 }),
      new RouteTicket(),
      false,
    );
    expect(outcome).toBe(Route.Triage);
    expect(trace.rule.text).toBe('team is none');
    expect(trace.comparisons.at(-1)).toMatchObject({ key: 'team', op: 'is', label: 'none', value: 0.7, result: true });
  });

  it('names the winning label as the rule when the Decision routed on it', () => {
    const { outcome, trace } = applyTracedDecision(
      routed({ billing: 0.8, technical: 0.1, none: 0.1 }),
      new RouteTicket(),
      false,
    );
    expect(outcome).toBe(Route.Billing);
    expect(trace.rule.text).toBe('team is billing');
    // One read of the label is one comparison, however often the Decision reads it.
    expect(trace.comparisons.filter((comparison) => comparison.key === 'team')).toHaveLength(1);
  });

  it('names every condition that held before the return, the label read included', () => {
    const { outcome, trace } = applyTracedDecision(
      routed({ billing: 0.8, technical: 0.1, none: 0.1 }, [0, 0, 0.1, 0.9]),
      new RouteTicket(),
      false,
    );
    expect(outcome).toBe(Route.Triage);
    expect(trace.rule.text).toBe('severity ≥ 2.5 and team is billing');
  });

  it('names the label read again at the return, after tests that failed, as the rule', () => {
    const { outcome, trace } = applyTracedDecision(
      routed({ billing: 0.1, technical: 0.2, none: 0.7 }),
      new ReadsLabelFirst(),
      false,
    );
    expect(outcome).toBe(Route.Triage);
    expect(trace.rule.text).toBe('team is none');
  });

  it('never says "no tested condition held" when a label read earlier may have decided', () => {
    const { outcome, trace } = applyTracedDecision(
      routed({ billing: 0.8, technical: 0.1, none: 0.1 }),
      new ReadsLabelIntoVariable(),
      false,
    );
    expect(outcome).toBe(Route.Billing);
    expect(trace.rule.comparisons).toEqual([]);
    expect(trace.rule.text).toBe(
      'otherwise (no traced test held after the last one; the Decision read team is billing before it, and a test ' +
        "on that label outside the answer's methods is not seen)",
    );
  });

  it('keeps the label an own enumerable field of the answer (it serialises and compares as before)', () => {
    const team = routed({ billing: 0.8, technical: 0.1, none: 0.1 }).classification('team');
    expect(JSON.parse(JSON.stringify(team))).toMatchObject({ label: 'billing' });
    expect(Object.keys(team)).toContain('label');
    expect(team).toEqual(expect.objectContaining({ label: 'billing' }));
  });
});

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
