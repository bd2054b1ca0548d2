import { Inject, Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InvalidConfiguration } from '../errors';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
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

/**
 * Holds the app's ResolutionPolicy, named by the module option `resolutionPolicy`: the app's own provider of that
 * class when it registered one, else an instance Nest creates with its dependencies injected; null when none is
 * configured. Resolved in onModuleInit, once every provider of the app is constructed.
 */
@Injectable()
export class ResolutionPolicyHost implements OnModuleInit {
  private resolved: ResolutionPolicy | null = null;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) private readonly options: ResolvedJudgmentOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  async onModuleInit(): Promise<void> {
    const cls = this.options.resolutionPolicy as Type<ResolutionPolicy> | null;
    if (!cls) return;
    const provided = providedBy(this.moduleRef, cls);
    if (provided) {
      this.resolved = provided;
      return;
    }
    try {
      this.resolved = await this.moduleRef.create(cls);
    } catch (error) {
      throw new InvalidConfiguration(
        `The resolutionPolicy ${cls.name} could not be constructed: ${(error as Error)?.message ?? String(error)} ` +
          'Provide its dependencies (the modules of forRootAsync({ imports })), or register it as a provider.',
        { cause: error },
      );
    }
  }

  /** The app's policy, or null when none is configured (then every reviewer is refused). */
  get policy(): ResolutionPolicy | null {
    return this.resolved;
  }
}

/**
 * The app's own provider of `cls`, or null when the app registers none. Only Nest's "not found" is taken as absence:
 * any other error (a provider that failed to build) surfaces.
 */
function providedBy<T>(moduleRef: ModuleRef, cls: Type<T>): T | null {
  try {
    return moduleRef.get(cls, { strict: false });
  } catch (error) {
    if ((error as Error)?.constructor?.name === 'UnknownElementException') return null;
    throw error;
  }
}
