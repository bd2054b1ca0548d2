import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Judgment } from '../definition/judgment.decorator';
import { JudgmentJobs } from '../queue/judgment.jobs';
import { QUEUED_DISPATCH } from '../queue/queue.constants';
import type { DispatchOptions } from './judge.types';

/** A way of running dispatched Judgments; resolves to the job id. */
export interface DispatchStrategy {
  dispatch(judgment: Judgment, options: DispatchOptions): Promise<string>;
}

/**
 * Runs `judge.dispatch()`: on BullMQ when the queue is enabled (the queued strategy is provided), otherwise inline
 * like a sync queue. Inline runs the very same job: the Judgment makes the payload round trip (so what the queue would
 * refuse is refused here too), is assessed through the app's Judge (the fake one in tests), and a recorded Assessment
 * is decided from its record. Delay, queue and priority have no meaning inline and are ignored.
 */
@Injectable()
export class JudgmentDispatcher {
  constructor(
    private readonly jobs: JudgmentJobs,
    private readonly moduleRef: ModuleRef,
    @Optional() @Inject(QUEUED_DISPATCH) private readonly queued?: DispatchStrategy,
  ) {}

  dispatch(judgment: Judgment, options: DispatchOptions = {}): Promise<string> {
    return this.queued ? this.queued.dispatch(judgment, options) : this.inline(judgment);
  }

  private async inline(judgment: Judgment): Promise<string> {
    const copy = await this.jobs.judgment(this.jobs.payload(judgment));
    // judge.service.ts imports this file: requiring it here lets either be loaded first (no initialisation cycle).
    const { Judge } = require('./judge.service') as typeof import('./judge.service');
    const step = await this.jobs.assess(this.moduleRef.get(Judge, { strict: false }), copy);
    if (step.kind === 'recorded') await this.jobs.decide(step.record, copy);
    return `inline-${randomUUID()}`;
  }
}
