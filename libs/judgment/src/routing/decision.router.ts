import { Injectable } from '@nestjs/common';
import type { Assessment } from '../assessment/assessment';
import type { ReviewReason } from '../assessment/awaiting-review';
import { type DecisionPlan, type GuardFinding, planDecision } from '../decision/decision-plan';
import type { Decision, DecisionMetadata } from '../decision/decision.decorator';
import type { DecisionTrace } from '../decision/decision-trace';
import type { CascadeStep } from '../definition/cascade';
import type { Outcome } from '../definition/outcome';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { judgmentInstruments } from '../telemetry/judgment.metrics';
import { SignalGuard } from '../signal/signal.guard';
import { AuditSampler } from './audit.sampler';
import { CalibrationGuard, type Drift } from './calibration.guard';

/** One decision as the router sees it. */
export interface RoutedDecision {
  readonly assessment: Assessment<any>;
  readonly decision: Decision;
  readonly metadata: DecisionMetadata;
  readonly outcome: Outcome;
  readonly trace: DecisionTrace;
  /** The Review the case is already in, or null. */
  readonly inReview: ReviewReason | null;
  /** Whether an audit may be requested for it (a record exists and none was requested yet). */
  readonly auditable: boolean;
  /** The cascade's next tier, when a Review Outcome of this decision escalates to it; else null. */
  readonly escalation?: { readonly tier: number; readonly connection: string } | null;
  /** Where this decision stands in its Judgment's cascade (the drift guard checks that tier's lock), else null. */
  readonly tier?: CascadeStep | null;
}

/** The plan of a decision, with what the guards found (announced once the plan is carried out). */
export interface Routing {
  readonly plan: DecisionPlan;
  readonly drift: Drift | null;
}

/**
 * Where a decided case goes: asks the guards (the drift guard, the signal-collapse guard, the audit sample) about one
 * decision and computes its plan with the pure `planDecision`. It writes nothing; the recording side carries the plan
 * out.
 */
@Injectable()
export class DecisionRouter {
  constructor(
    private readonly guard: CalibrationGuard,
    private readonly audits: AuditSampler,
    private readonly signal: SignalGuard,
  ) {}

  route(decided: RoutedDecision): Routing {
    const { assessment, decision, metadata, outcome, trace, inReview, auditable, escalation } = decided;
    const drift = this.guard.check(assessment, decision, metadata, decided.tier ?? null);
    const collapse = this.signal.check(assessment);
    const findings: GuardFinding[] = [
      ...(drift ? [this.guard.finding(drift)] : []),
      ...(collapse ? [this.signal.finding(collapse)] : []),
    ];
    const plan = planDecision({
      outcome,
      decision: metadata,
      rule: trace.rule.text,
      findings,
      inReview,
      audit: auditable ? { rate: this.audits.rate(metadata), draw: this.audits.draw() } : null,
      escalation: escalation ?? null,
    });
    return { plan, drift };
  }

  /** Announces what the guards found (once per identity and process), after the plan was carried out. */
  async announce(routing: Routing, record: AssessmentRecord | null, counted: Record<string, string>): Promise<void> {
    const { drift } = routing;
    if (!drift) return;
    judgmentInstruments().drifts.add(1, { ...counted, 'judgment.drift.policy': drift.policy });
    await this.guard.announce(drift, record);
  }
}
