import { Inject, Injectable, Optional } from '@nestjs/common';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { Reviewer } from '../persistence/reviewer';

/**
 * Who may resolve a Review: the app implements it and names the class in `JudgmentModule.forRoot({ resolutionPolicy })`
 * (instantiated through DI, so it can inject services). With no policy configured every reviewer is refused.
 */
export interface ResolutionPolicy {
  /** Whether `reviewer` may resolve this record (asked before anything about the record is checked). */
  canResolve(reviewer: Reviewer, record: AssessmentRecord): boolean | Promise<boolean>;
  /**
   * Optional: whether `reviewer` may resolve a record someone else holds a live claim on (e.g. a team lead). Without
   * this method nobody may: resolving a record claimed by another reviewer fails with ReviewClaimConflict.
   */
  canOverrideClaim?(reviewer: Reviewer, record: AssessmentRecord): boolean | Promise<boolean>;
}

/** The token the module's wiring provides the app's ResolutionPolicy under (absent or null: none is configured). */
export const APP_RESOLUTION_POLICY = Symbol('APP_RESOLUTION_POLICY');

/**
 * Holds the app's ResolutionPolicy, named by the module option `resolutionPolicy`: constructed through DI by the
 * module's wiring (so it can inject services) and injected here; null when none is configured.
 */
@Injectable()
export class ResolutionPolicyHost {
  constructor(@Optional() @Inject(APP_RESOLUTION_POLICY) private readonly resolved: ResolutionPolicy | null = null) {}

  /** The app's policy, or null when none is configured (then every reviewer is refused). */
  get policy(): ResolutionPolicy | null {
    return this.resolved ?? null;
  }
}
