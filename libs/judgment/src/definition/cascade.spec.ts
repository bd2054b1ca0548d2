import { cascadeStepOf, cascadeThresholdProblems } from './cascade';

describe('checking a cascade against its Decision (at startup)', () => {
  const decision = { name: 'RefundDecision', thresholds: { reject: 0.8, approve: 0.2 }, reviewOutcomes: 1 };

  it('tiers naming only declared thresholds pass', () => {
    const tiers = [{ connection: 'cheap', thresholds: { reject: 0.95, approve: 0.05 } }, { connection: 'strong' }];
    expect(cascadeThresholdProblems('refund-abuse', tiers, decision)).toEqual([]);
  });

  it('a threshold the Decision does not declare is named with the Judgment, the tier and the declared names', () => {
    const tiers = [{ connection: 'cheap' }, { connection: 'strong', thresholds: { rejct: 0.5 } }];
    expect(cascadeThresholdProblems('refund-abuse', tiers, decision)).toEqual([
      'The cascade of refund-abuse, tier 2 ("strong"), names threshold "rejct", which RefundDecision does not ' +
        'declare (it declares reject, approve).',
    ]);
  });

  it('a Decision without Review Outcomes can never escalate', () => {
    const tiers = [{ connection: 'cheap' }, { connection: 'strong' }];
    expect(cascadeThresholdProblems('refund-abuse', tiers, { ...decision, reviewOutcomes: 0 })).toEqual([
      expect.stringMatching(/refund-abuse can never escalate: its Decision RefundDecision declares no Review Outcomes/),
    ]);
  });
});

describe('the cascade place a record notes', () => {
  it('is read from provenance_details.cascade', () => {
    const cascade = { tier: 2, of: 2, connection: 'strong', escalatedFrom: 7 };
    expect(cascadeStepOf({ provenanceDetails: { cascade } })).toEqual(cascade);
    expect(cascadeStepOf({ provenanceDetails: { cascade: { ...cascade, escalatedFrom: null } } })).toMatchObject({
      escalatedFrom: null,
    });
  });

  it('is null without one, or when it is not readable', () => {
    expect(cascadeStepOf({ provenanceDetails: null })).toBeNull();
    expect(cascadeStepOf({ provenanceDetails: { cascade: { tier: 'two' } } })).toBeNull();
  });
});
