import type { AuditAgreement } from '../lock/audit-agreement';
import { auditHtml } from './audit.html';

const agreement = (fields: Partial<AuditAgreement>): AuditAgreement => ({
  judgment: 'refund-abuse',
  decision: 'RefundDecision',
  decisionVersion: '2',
  questions: 'a'.repeat(64),
  model: 'jev-1.13.0',
  audits: 40,
  agreed: 39,
  accuracy: 0.975,
  interval: { low: 0.87, high: 0.996 },
  lockedAccuracy: 0.975,
  lockedInterval: { low: 0.959, high: 0.985 },
  dropped: false,
  inconclusive: false,
  ...fields,
});

describe('auditHtml', () => {
  it('says the audits hold, draws both intervals, and escapes what the records hold', () => {
    const html = auditHtml('refund-abuse', 'judgment.lock.json', [agreement({ model: '<jev>' })]);
    expect(html).toContain('<p class="verdict">Holding: no audited interval lies wholly below');
    expect(html.match(/<line [^>]*stroke-width="4"/g)).toHaveLength(2);
    expect(html).toContain('&lt;jev&gt;');
    expect(html).not.toContain('<jev>');
    expect(html).not.toContain('<script');
  });

  it('draws only the audited interval of an identity the lock does not hold, and says so in the table', () => {
    const html = auditHtml('refund-abuse', null, [agreement({ lockedAccuracy: null, lockedInterval: null })]);
    expect(html.match(/<line [^>]*stroke-width="4"/g)).toHaveLength(1);
    expect(html).toContain('<td>not in the lock</td>');
    expect(html).toContain('No calibration lock to compare with.');
  });

  it('says "inconclusive" in words, not "ok", for an identity with fewer audits than the rule', () => {
    const html = auditHtml('refund-abuse', null, [agreement({ audits: 7, agreed: 7, inconclusive: true })]);
    expect(html).toContain('<p class="verdict">Inconclusive: 1 of 1 identity has fewer than 30 audits');
    expect(html).toContain('<td>inconclusive (n = 7)</td>');
    expect(html).toContain('n = 7 (inconclusive)');
    expect(html).not.toContain('<td>ok</td>');
  });

  it('writes a page without a chart when nothing was audited yet', () => {
    const html = auditHtml('refund-abuse', null, []);
    expect(html).toContain('No resolved audit of refund-abuse yet.');
    expect(html).not.toContain('<svg');
  });
});
