import { InvalidAuditPlan } from '../errors';
import { auditsNeededFor, planAudits } from './audit-plan';

/** P(Bin(n, p) ≤ k), summed term by term in log space (independent of the incomplete beta the code uses). */
function binomialCdf(k: number, n: number, p: number): number {
  let logTerm = n * Math.log(1 - p); // i = 0
  let sum = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((n - i + 1) / i) + Math.log(p / (1 - p));
    sum += Math.exp(logTerm);
  }
  return sum;
}

describe('auditsNeededFor (Clopper–Pearson)', () => {
  it('gives the known counts with none wrong: 299 at 1 %/95 %, 59 at 5 %/95 %, 459 at 1 %/99 %', () => {
    expect(auditsNeededFor(0, 0.01, 0.95)).toBe(299);
    expect(auditsNeededFor(0, 0.05, 0.95)).toBe(59);
    expect(auditsNeededFor(0, 0.01, 0.99)).toBe(459);
    expect(auditsNeededFor(0, 0.1, 0.9)).toBe(22);
  });

  it('gives the known acceptance-sampling counts with errors: 473 (1 wrong) and 628 (2 wrong) at 1 %/95 %', () => {
    expect(auditsNeededFor(1, 0.01, 0.95)).toBe(473);
    expect(auditsNeededFor(2, 0.01, 0.95)).toBe(628);
  });

  it('returns the least n: P(Bin(n, target) ≤ errors) ≤ 1 − confidence at n, not at n − 1', () => {
    for (const [errors, target, confidence] of [
      [0, 0.02, 0.95],
      [3, 0.05, 0.9],
      [5, 0.01, 0.99],
      [10, 0.2, 0.8],
    ]) {
      const n = auditsNeededFor(errors, target, confidence);
      expect(binomialCdf(errors, n, target)).toBeLessThanOrEqual(1 - confidence + 1e-12);
      expect(binomialCdf(errors, n - 1, target)).toBeGreaterThan(1 - confidence);
    }
  });
});

describe('planAudits', () => {
  it('says how many more audits at the current error count, and the audit rate that brings them in time', () => {
    const plan = planAudits({
      maxError: 0.01,
      confidence: 0.95,
      audits: 100,
      errors: 1,
      automaticPerDay: 500,
      days: 30,
    });
    expect(plan).toMatchObject({ cleanAuditsNeeded: 299, auditsNeeded: 473, moreAudits: 373, met: false });
    expect(plan.auditRate).toBeCloseTo(373 / 15000, 12);
    expect(plan.currentError).toBe(0.01);
    expect(plan.currentBound).toBeGreaterThan(0.04); // 1 in 100: the bound is far above 1 %
  });

  it('answers with no audit yet: the counts, and no data for the estimate', () => {
    const plan = planAudits({ maxError: 0.01 });
    expect(plan).toMatchObject({
      confidence: 0.95,
      audits: 0,
      errors: 0,
      cleanAuditsNeeded: 299,
      auditsNeeded: 299,
      moreAudits: 299,
      currentBound: null,
      currentError: null,
      met: false,
      auditRate: null,
      days: 30,
    });
  });

  it('needs no more once the audits show the target, and says a rate above 1 when traffic is too low', () => {
    expect(planAudits({ maxError: 0.05, audits: 80, errors: 0 })).toMatchObject({ moreAudits: 0, met: true });
    expect(planAudits({ maxError: 0.01, automaticPerDay: 2, days: 10 }).auditRate).toBeCloseTo(299 / 20, 12);
  });

  it('refuses a target or confidence outside (0, 1), a horizon of 0 days and impossible counts, naming them', () => {
    expect(() => planAudits({ maxError: 0 })).toThrow(InvalidAuditPlan);
    expect(() => planAudits({ maxError: 1.5 })).toThrow(
      'maxError (--max-error) must be a number strictly between 0 and 1 (e.g. 0.01); got 1.5.',
    );
    expect(() => planAudits({ maxError: 0.01, confidence: 1 })).toThrow('confidence (--confidence) must be');
    expect(() => planAudits({ maxError: 0.01, days: 0 })).toThrow('days (--days) must be a number above 0');
    expect(() => planAudits({ maxError: 0.01, audits: 3, errors: 4 })).toThrow('0 ≤ errors ≤ audits');
  });
});
