import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AwaitingReview, EngineFailed, Judge } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import { RefundAbuse } from './refund-abuse.judgment';
import type { RefundOutcome } from './refund.decision';
import { Refund } from './refund.entity';

@Injectable()
export class RefundRequests {
  constructor(
    private readonly judge: Judge,
    @InjectRepository(Refund) private readonly refunds: Repository<Refund>,
  ) {}

  /** Runs after validation, authorization and the refund rules: only what still needs a reader gets here. */
  async decide(refund: Refund): Promise<RefundOutcome | 'pending'> {
    try {
      const assessment = await this.judge.assess(new RefundAbuse(refund));
      const decided = await assessment.outcome<RefundOutcome>();
      // In Review (a Review Outcome, or a guard such as calibration drift): a reviewer's Resolution settles it.
      if (decided instanceof AwaitingReview) return 'pending';
      return decided;
    } catch (error) {
      if (error instanceof EngineFailed) return 'pending'; // recorded as Unassessed; a person or a retry decides
      throw error;
    }
  }

  /** The same work on the queue: the listeners act once the worker has decided. */
  async decideLater(refund: Refund): Promise<string> {
    return this.judge.dispatch(new RefundAbuse(refund));
  }

  async create(fields: Pick<Refund, 'item' | 'amount' | 'explanation'>): Promise<Refund> {
    return this.refunds.save(this.refunds.create(fields));
  }
}
