import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Judgment } from '../definition/judgment.decorator';
import type { Decided } from '../assessment/awaiting-review';
import type { AttemptOptions, Attempter, DispatchStrategy } from '../judge/judge.types';
import type { LinkCascade } from '../recording/record-link';
import { JudgmentJobs } from './judgment.jobs';

/**
 * Runs `judge.dispatch()` inline, like a sync queue, when the queue is off. It runs the very same job: the Judgment
 * makes the payload round trip (so what the queue would refuse is refused here too), is assessed by the Judge, and a
 * recorded Assessment is decided from its record. Delay, queue and priority have no meaning inline and are ignored.
 */
@Injectable()
export class InlineDispatch implements DispatchStrategy {
  constructor(private readonly jobs: JudgmentJobs) {}

  async dispatch(judgment: Judgment, _options: unknown, judge: Attempter): Promise<string> {
    const copy = await this.jobs.judgment(this.jobs.payload(judgment));
    await this.run(judge, copy, {});
    return `inline-${randomUUID()}`;
  }

  /** Assesses one tier and decides its record; a cascade's Review Outcome runs the next tier the same way. */
  private async run(judge: Attempter, judgment: Judgment, options: AttemptOptions): Promise<Decided | null> {
    const { step, answered } = await this.jobs.assess(judge, judgment, options);
    if (step.kind !== 'recorded') return null;
    const escalate: LinkCascade['escalate'] = (_decision, from) =>
      this.run(judge, judgment, { tier: { index: from.step.tier, escalatedFrom: from.record?.id ?? null } });
    return this.jobs.decide(step.record, judgment, answered, escalate);
  }
}
