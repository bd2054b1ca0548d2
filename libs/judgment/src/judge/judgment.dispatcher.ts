import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Assessment } from '../assessment/assessment';
import { type Judgment, judgmentMetadata } from '../definition/judgment.decorator';
import { Judge } from './judge.service';
import type { DispatchOptions } from './judge.types';

/**
 * Runs dispatched Judgments. This inline dispatcher does the job's work at once, like a sync queue: assess through
 * the app's Judge (the fake one in tests), then decide with the default Decision. The BullMQ dispatcher replaces it
 * when the queue is enabled.
 */
@Injectable()
export class JudgmentDispatcher {
  constructor(private readonly moduleRef: ModuleRef) {}

  async dispatch(judgment: Judgment, _options: DispatchOptions = {}): Promise<string> {
    const id = `inline-${randomUUID()}`;
    const result = await this.moduleRef.get(Judge, { strict: false }).assess(judgment);
    if (result instanceof Assessment && judgmentMetadata(judgment.constructor).decision) await result.outcome();
    return id;
  }
}
