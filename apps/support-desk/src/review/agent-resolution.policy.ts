import { Injectable } from '@nestjs/common';
import type { AssessmentRecord, ResolutionPolicy, Reviewer } from 'nestjs-judgment';
import { Agents } from './agents';

/** Only the support desk's agents may resolve Reviews (named in `JudgmentModule.forRootAsync({ resolutionPolicy })`). */
@Injectable()
export class AgentResolutionPolicy implements ResolutionPolicy {
  constructor(private readonly agents: Agents) {}

  canResolve(reviewer: Reviewer, _record: AssessmentRecord): boolean {
    return this.agents.isAgent(reviewer);
  }

  /** Leads (SUPPORT_DESK_LEADS) settle N-of-M Reviews whose votes disagree. */
  canAdjudicate(reviewer: Reviewer, _record: AssessmentRecord): boolean {
    return this.agents.isLead(reviewer);
  }
}
