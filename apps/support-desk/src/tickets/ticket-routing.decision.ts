import { type Assessment, Decision } from 'nestjs-judgment';
import { Department } from './department';
import type { TicketRouting } from './ticket-routing.judgment';

/** Where a ticket goes: one of the teams, or the triage desk (a person routes it). */
export enum TicketOutcome {
  Billing = 'billing',
  Technical = 'technical',
  Account = 'account',
  Triage = 'triage',
}

const TEAMS: Record<Department, TicketOutcome> = {
  [Department.Billing]: TicketOutcome.Billing,
  [Department.Technical]: TicketOutcome.Technical,
  [Department.Account]: TicketOutcome.Account,
};

/** Routes a ticket to the team the Engine picked, unless no team fits, the answer is split or a described problem looks critical. */
@Decision({ outcomes: TicketOutcome, review: [TicketOutcome.Triage], version: '1', outcomeType: 'TicketOutcome' })
export class TicketRoutingDecision implements Decision<TicketRouting, TicketOutcome> {
  /**
   * `split`: a Confidence below it is a split answer; `problem`: a described problem at least this likely lets the
   * severity count; `critical`: a severity above it needs triage.
   */
  readonly thresholds = { split: 0.25, problem: 0.5, critical: 2.5 };

  decide(assessment: Assessment<TicketRouting>): TicketOutcome {
    const department = assessment.classification('department');
    const split = department.confidence < this.thresholds.split;
    const critical =
      assessment.likelihood('problem').above(this.thresholds.problem) &&
      assessment.rating('severity').above(this.thresholds.critical);
    // The label is read where it is tested, so the decision trace names it as the rule (`department is none`).
    if (department.label === null) return TicketOutcome.Triage;
    if (split) return TicketOutcome.Triage;
    if (critical) return TicketOutcome.Triage;
    return TEAMS[department.label];
  }
}
