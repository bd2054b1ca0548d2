import { cohensKappa, reviewerAgreement, type ReviewVoteRow } from './reviewer-agreement';

/** `count` pairs of (a, b). */
function repeat(count: number, a: string, b: string): [string, string][] {
  return Array.from({ length: count }, () => [a, b] as [string, string]);
}

describe("Cohen's kappa", () => {
  it('is 0.4 on the textbook table (20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no): pₒ 0.7, pₑ 0.5', () => {
    const figures = cohensKappa([
      ...repeat(20, 'yes', 'yes'),
      ...repeat(5, 'yes', 'no'),
      ...repeat(10, 'no', 'yes'),
      ...repeat(15, 'no', 'no'),
    ]);
    expect(figures.pairs).toBe(50);
    expect(figures.rawAgreement).toBeCloseTo(0.7, 12);
    expect(figures.kappa).toBeCloseTo(0.4, 12);
  });

  it('is 0.1304… on a 45/15/25/15 table (pₒ 0.6, pₑ 0.54)', () => {
    const figures = cohensKappa([
      ...repeat(45, 'a', 'a'),
      ...repeat(15, 'a', 'b'),
      ...repeat(25, 'b', 'a'),
      ...repeat(15, 'b', 'b'),
    ]);
    expect(figures.rawAgreement).toBeCloseTo(0.6, 12);
    expect(figures.kappa).toBeCloseTo((0.6 - 0.54) / (1 - 0.54), 12);
  });

  it('is 1 on full agreement over two Outcomes, −1 on systematic disagreement', () => {
    expect(cohensKappa([...repeat(3, 'a', 'a'), ...repeat(3, 'b', 'b')]).kappa).toBeCloseTo(1, 12);
    expect(cohensKappa([...repeat(3, 'a', 'b'), ...repeat(3, 'b', 'a')]).kappa).toBeCloseTo(-1, 12);
  });

  it('is null without pairs, and when both sides only chose one and the same Outcome (chance agreement 1)', () => {
    expect(cohensKappa([])).toEqual({ pairs: 0, rawAgreement: null, kappa: null });
    expect(cohensKappa(repeat(4, 'a', 'a'))).toEqual({ pairs: 4, rawAgreement: 1, kappa: null });
  });
});

describe('reviewerAgreement', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  const vote = (
    recordId: number,
    reviewer: string,
    outcome: string,
    s: number,
    judgment = 'listing',
  ): ReviewVoteRow => ({
    recordId,
    judgment,
    reviewer,
    outcome,
    createdAt: at(s),
  });

  it('pairs the votes on each record, per Judgment and per reviewer pair (names in order), with their counts', () => {
    const votes = [
      vote(1, 'agent #bob', 'approve', 1),
      vote(1, 'agent #alice', 'approve', 2),
      vote(2, 'agent #alice', 'reject', 3),
      vote(2, 'agent #bob', 'approve', 4),
      vote(3, 'agent #alice', 'reject', 5),
      vote(3, 'agent #carol', 'reject', 6),
      vote(4, 'agent #alice', 'reject', 7), // one vote: no pair
      vote(5, 'agent #alice', 'x', 8, 'other'),
      vote(5, 'agent #bob', 'x', 9, 'other'),
    ];
    const { judgments, pairs } = reviewerAgreement(votes);
    expect(judgments.map((j) => [j.judgment, j.records, j.pairs, j.rawAgreement])).toEqual([
      ['listing', 3, 3, 2 / 3],
      ['other', 1, 1, 1],
    ]);
    expect(pairs.map((p) => [p.judgment, p.reviewers, p.pairs, p.rawAgreement])).toEqual([
      ['listing', ['agent #alice', 'agent #bob'], 2, 0.5],
      ['listing', ['agent #alice', 'agent #carol'], 1, 1],
      ['other', ['agent #alice', 'agent #bob'], 1, 1],
    ]);
    // alice/bob: (approve, approve), (reject, approve) → pₒ 0.5, pₑ = 0.5·1 = 0.5 → κ 0.
    expect(pairs[0].kappa).toBeCloseTo(0, 12);
  });

  it('pairs every two of three votes on a record (3 pairs), earlier vote first for the Judgment', () => {
    const { judgments } = reviewerAgreement([
      vote(1, 'a #1', 'x', 1),
      vote(1, 'a #2', 'x', 2),
      vote(1, 'a #3', 'y', 3),
    ]);
    expect(judgments[0]).toMatchObject({ records: 1, pairs: 3, rawAgreement: 1 / 3 });
  });
});
