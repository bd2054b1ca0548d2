import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Judgment } from '../definition/judgment.decorator';
import type { Attempter, DispatchStrategy } from '../judge/judge.types';
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
    const { step, answered } = await this.jobs.assess(judge, copy);
    if (step.kind === 'recorded') await this.jobs.decide(step.record, copy, answered);
    return `inline-${randomUUID()}`;
  }
}
