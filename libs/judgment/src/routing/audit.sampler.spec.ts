import { planDecision } from '../decision/decision-plan';
import { Decision, type DecisionMetadata, decisionMetadata } from '../decision/decision.decorator';
import { InvalidConfiguration, InvalidDecision } from '../errors';
import { resolveJudgmentOptions } from '../judgment.options';
import { AuditSampler } from './audit.sampler';

enum Outcome {
  Approve = 'approve',
  Escalate = 'escalate',
}

@Decision({ outcomes: Outcome, review: [Outcome.Escalate], audit: 0.02 })
class AuditedDecision {
  decide(): Outcome {
    return Outcome.Approve;
  }
}

const sampler = (audit?: Record<string, number>) =>
  new AuditSampler(resolveJudgmentOptions({ calibration: { audit } }));

/** Whether the decision plan audits an automatic Outcome of the Decision, with the sampler's rate and one draw. */
function audited(from: AuditSampler, metadata: DecisionMetadata): boolean {
  const plan = planDecision({
    outcome: Outcome.Approve,
    decision: metadata,
    rule: 'otherwise',
    findings: [],
    inReview: null,
    audit: { rate: from.rate(metadata), draw: from.draw() },
  });
  return plan.route === 'act' && plan.audit;
}

describe('AuditSampler', () => {
  it('samples its rate of 10,000 automatic Outcomes, within a binomial tolerance', () => {
    const metadata = decisionMetadata(AuditedDecision);
    const draws = 10_000;
    let count = 0;
    for (let i = 0; i < draws; i += 1) if (audited(sampler(), metadata)) count += 1;
    const expected = draws * 0.02;
    const sd = Math.sqrt(draws * 0.02 * 0.98);
    expect(Math.abs(count - expected)).toBeLessThan(4 * sd);
  });

  it('takes the module option over the Decision’s own rate', () => {
    const metadata = decisionMetadata(AuditedDecision);
    expect(sampler().rate(metadata)).toBe(0.02);
    expect(sampler({ AuditedDecision: 0.5 }).rate(metadata)).toBe(0.5);
    const always = sampler({ AuditedDecision: 1 });
    expect(Array.from({ length: 100 }, () => audited(always, metadata)).every(Boolean)).toBe(true);
    const never = sampler({ AuditedDecision: 0 });
    expect(Array.from({ length: 100 }, () => audited(never, metadata)).some(Boolean)).toBe(false);
  });

  it('draws independently of the Outcome: the same uniform source decides, whatever was decided', () => {
    const metadata = decisionMetadata(AuditedDecision);
    const seeded = sampler();
    const values = [0.01, 0.5, 0.019, 0.03];
    seeded.useRandom(() => values.shift() as number);
    expect([1, 2, 3, 4].map(() => audited(seeded, metadata))).toEqual([true, false, true, false]);
  });

  it('refuses a rate outside [0, 1], naming the option or the Decision', () => {
    expect(() => sampler({ AuditedDecision: 2 })).toThrow(InvalidConfiguration);
    expect(() => sampler({ AuditedDecision: 2 })).toThrow(
      'calibration.audit.AuditedDecision must be a share in [0, 1]',
    );
    expect(() => Decision({ outcomes: Outcome, audit: -0.1 })(class Broken {})).toThrow(InvalidDecision);
  });
});
