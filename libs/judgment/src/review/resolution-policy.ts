import type { Provider, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { JUDGMENT_MODULE_OPTIONS } from '../judgment.constants';
import type { JudgmentModuleOptions } from '../judgment.options';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { Reviewer } from '../persistence/reviewer';

/**
 * Who may resolve a Review: the app implements it and names the class in `JudgmentModule.forRoot({ resolutionPolicy })`
 * (instantiated through DI, so it can inject services). With no policy configured every reviewer is refused.
 */
export interface ResolutionPolicy {
  /** Whether `reviewer` may resolve this record (asked before anything about the record is checked). */
  canResolve(reviewer: Reviewer, record: AssessmentRecord): boolean | Promise<boolean>;
}

/** Injection token of the app's ResolutionPolicy instance (null when none is configured). */
export const RESOLUTION_POLICY = Symbol('RESOLUTION_POLICY');

/**
 * Provides RESOLUTION_POLICY from the module option `resolutionPolicy`: the app's own provider of that class when it
 * registered one, else an instance Nest creates with its dependencies injected; null when no policy is configured.
 */
export const resolutionPolicyProvider: Provider = {
  provide: RESOLUTION_POLICY,
  inject: [JUDGMENT_MODULE_OPTIONS, ModuleRef],
  useFactory: async (options: JudgmentModuleOptions, moduleRef: ModuleRef): Promise<ResolutionPolicy | null> => {
    const cls = options.resolutionPolicy as Type<ResolutionPolicy> | undefined;
    if (!cls) return null;
    if (typeof cls !== 'function' || typeof cls.prototype?.canResolve !== 'function') {
      throw new TypeError(
        'JudgmentModule option resolutionPolicy must be a class implementing ResolutionPolicy ' +
          '(a canResolve(reviewer, record) method).',
      );
    }
    try {
      return moduleRef.get(cls, { strict: false });
    } catch {
      return moduleRef.create(cls);
    }
  },
};
