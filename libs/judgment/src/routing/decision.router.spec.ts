// Where a decided case goes, without a database: the DecisionRouter asks the guards (drift against the calibration
// lock, signal collapse, the audit sample) and computes the plan with planDecision; each route is shown here from the
// decision to the plan the recording side then carries out.
import { Logger } from '@nestjs/common';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Assessment } from '../assessment/assessment';
import { applyTracedDecision, COMPUTE_ONLY } from '../decision/apply-decision';
import { type Decision, decisionMetadata } from '../decision/decision.decorator';
import { Provenance } from '../assessment/provenance';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { type JudgmentModuleOptions, resolveJudgmentOptions } from '../judgment.options';
import { JudgmentLogger } from '../logging/judgment.logger';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { SignalGuard } from '../signal/signal.guard';
import { RefundAbuse, RefundDecision, RefundOutcome, aRefund } from '../testing/fixtures.spec-helpers';
import { AuditSampler } from './audit.sampler';
import { CalibrationGuard } from './calibration.guard';
import { DecisionRouter, type Routing } from './decision.router';

/** A lock file that does not exist: it vouches for nothing, so every decision drifts. */
const MISSING_LOCK = join(tmpdir(), `judgment-router-${process.pid}-no-such.lock.json`);

function router(options: JudgmentModuleOptions, signal?: Pick<SignalGuard, 'check' | 'finding'>): DecisionRouter {
  const resolved = resolveJudgmentOptions({ log: false, ...options });
  const registry = new JudgmentRegistry();
  registry.register([RefundAbuse]);
  const events = new JudgmentEventsPublisher();
  const logger = new JudgmentLogger(resolved);
  return new DecisionRouter(
    new CalibrationGuard(resolved, registry, events, logger),
    new AuditSampler(resolved),
    (signal as SignalGuard) ?? new SignalGuard(resolved, events, logger),
  );
}

/** Decides an Assessment with `abusive` (RefundDecision: 0.1 approves, 0.5 escalates) and routes the decision. */
function route(through: DecisionRouter, abusive: number, extra: { inReview?: boolean; auditable?: boolean } = {}) {
  const judgment = new RefundAbuse(aRefund());
  const assessment = Assessment.fromAnswers(
    judgment,
    judgment.questions(),
    { abusive, credibility: [0, 0, 0.2, 0.8] },
    new Provenance('jev', 'jev-1.13.0'),
    COMPUTE_ONLY,
  );
  const decision = new RefundDecision() as Decision;
  const { outcome, trace } = applyTracedDecision(assessment, decision, false);
  const routing: Routing = through.route({
    assessment,
    decision,
    metadata: decisionMetadata(RefundDecision),
    outcome,
    trace,
    inReview: extra.inReview ? { cause: 'band', text: 'sent to Review earlier' } : null,
    auditable: extra.auditable ?? true,
  });
  return { outcome, ...routing };
}

describe('DecisionRouter (no database)', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('an automatic Outcome with no lock acts, unaudited at the Decision’s rate of 0', () => {
    const routed = route(router({}), 0.1);
    expect(routed.outcome).toBe(RefundOutcome.Approve);
    expect(routed.plan).toEqual({ route: 'act', audit: false });
    expect(routed.drift).toBeNull();
  });

  it('an automatic Outcome is audited when the audit rule samples it, and never when it cannot be requested', () => {
    const audited = router({ calibration: { audit: { RefundDecision: 1 } } });
    expect(route(audited, 0.1).plan).toEqual({ route: 'act', audit: true });
    expect(route(audited, 0.1, { auditable: false }).plan).toEqual({ route: 'act', audit: false });
  });

  it('a Review Outcome goes to Review with the band cause, naming the rule', () => {
    const routed = route(router({}), 0.5);
    expect(routed.outcome).toBe(RefundOutcome.Escalate);
    expect(routed.plan).toMatchObject({ route: 'review', enters: true, reason: { cause: 'band' } });
    expect(routed.plan.route === 'review' && routed.plan.reason.text).toMatch(/RefundDecision decided "escalate"/);
  });

  it("drift from the lock sends an automatic Outcome to Review with onDrift 'review', and says why", () => {
    const routed = route(router({ calibration: { lock: MISSING_LOCK, onDrift: 'review' } }), 0.1);
    expect(routed.plan).toMatchObject({ route: 'review', enters: true, reason: { cause: 'drift' } });
    expect(routed.drift).toMatchObject({ policy: 'review', identity: { model: 'jev-1.13.0' } });
  });

  it("drift with onDrift 'warn' lets the Outcome act and is still reported; 'off' does not look", () => {
    const warned = route(router({ calibration: { lock: MISSING_LOCK, onDrift: 'warn' } }), 0.1);
    expect(warned.plan).toEqual({ route: 'act', audit: false });
    expect(warned.drift).toMatchObject({ policy: 'warn' });
    const off = route(router({ calibration: { lock: MISSING_LOCK, onDrift: 'off' } }), 0.1);
    expect(off).toMatchObject({ plan: { route: 'act', audit: false }, drift: null });
  });

  it('a signal collapse whose policy sends to Review routes an automatic Outcome there under the collapse cause', () => {
    const collapsed = {
      check: () => ({ connection: 'jev', model: 'jev-1.13.0', reason: 'all answers above 0.999', policy: 'review' }),
      finding: () => ({ cause: 'collapse', text: 'Signal collapsed: all answers above 0.999', sendsToReview: true }),
    } as unknown as Pick<SignalGuard, 'check' | 'finding'>;
    const routed = route(router({}, collapsed), 0.1);
    expect(routed.plan).toEqual({
      route: 'review',
      enters: true,
      reason: { cause: 'collapse', text: 'Signal collapsed: all answers above 0.999' },
    });
  });

  it('a case already in Review stays there with its first reason, whatever the guards find', () => {
    const routed = route(router({ calibration: { lock: MISSING_LOCK, onDrift: 'review' } }), 0.1, { inReview: true });
    expect(routed.plan).toEqual({
      route: 'review',
      enters: false,
      reason: { cause: 'band', text: 'sent to Review earlier' },
    });
  });
});
