import { Inject, Injectable, type OnModuleInit, Optional } from '@nestjs/common';
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
  /**
   * Optional: whether `reviewer` may settle an N-of-M Review whose votes disagree (adjudication). Asked after
   * canResolve. Without this method nobody may: such a record stays in Review (or until its deadline).
   */
  canAdjudicate?(reviewer: Reviewer, record: AssessmentRecord): boolean | Promise<boolean>;
}

/**
 * The token of the module wiring's lookup of the app's ResolutionPolicy, asked once every provider of the app is built:
 * the app's own provider of the class when it registers one, else an instance built through DI; null when none is
 * configured. A class that cannot be built rejects with InvalidConfiguration naming it.
 */
export const APP_RESOLUTION_POLICY = Symbol('APP_RESOLUTION_POLICY');

/** How the wiring finds the app's ResolutionPolicy (see APP_RESOLUTION_POLICY). */
export type ResolutionPolicyLookup = () => Promise<ResolutionPolicy | null>;

/**
 * Holds the app's ResolutionPolicy, named by the module option `resolutionPolicy`: looked up once the app's providers
 * are built (so the app's own provider of the class, with the services of its own module, is the one used), at
 * startup; null when none is configured.
 */
@Injectable()
export class ResolutionPolicyHost implements OnModuleInit {
  private resolved: ResolutionPolicy | null = null;

  constructor(
    @Optional() @Inject(APP_RESOLUTION_POLICY) private readonly lookup: ResolutionPolicyLookup | null = null,
  ) {}

  async onModuleInit(): Promise<void> {
    this.resolved = this.lookup ? await this.lookup() : null;
  }

  /** The app's policy, or null when none is configured (then every reviewer is refused). */
  get policy(): ResolutionPolicy | null {
    return this.resolved;
  }
}
