import { Inject, Injectable } from '@nestjs/common';
import type { DecisionMetadata } from '../decision/decision.decorator';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';

/** A source of uniform numbers in [0, 1). */
export type UniformSource = () => number;

/**
 * Draws which automatic Outcomes are audited: each one independently with its Decision's audit rate (the module
 * option `calibration.audit` first, else the Decision's `audit`), whatever its answers or Outcome, so the audited
 * cases are a uniform sample of the automatic Outcomes and their accuracy estimates the whole's without bias.
 */
@Injectable()
export class AuditSampler {
  private readonly rates: Readonly<Record<string, number>>;
  private random: UniformSource = Math.random;

  constructor(@Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions) {
    this.rates = options.calibration.audit;
  }

  /** The audit rate of a Decision. */
  rate(metadata: DecisionMetadata): number {
    return this.rates[metadata.name] ?? metadata.audit;
  }

  /** One draw from the uniform source: the decision plan audits an automatic Outcome when it falls under the rate. */
  draw(): number {
    return this.random();
  }

  /** Replaces the uniform source (a seeded one in tests). */
  useRandom(random: UniformSource): void {
    this.random = random;
  }
}
