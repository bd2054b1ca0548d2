import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type Assessment, type Decided, Judge } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import type { CreateRefundDto } from './create-refund.dto';
import { RefundAbuse } from './refund-abuse.judgment';
import type { RefundOutcome } from './refund.decision';
import { Refund } from './refund.entity';

/** Refund requests: create, assess inline, or dispatch to the queue. */
@Injectable()
export class RefundsService {
  constructor(
    @InjectRepository(Refund) private readonly refunds: Repository<Refund>,
    private readonly judge: Judge,
  ) {}

  create(input: CreateRefundDto): Promise<Refund> {
    return this.refunds.save(this.refunds.create(input));
  }

  async find(id: number): Promise<Refund> {
    const refund = await this.refunds.findOneBy({ id });
    if (!refund) throw new NotFoundException(`Refund #${id} does not exist.`);
    return refund;
  }

  /** Assesses the request now and applies RefundDecision; the listeners act on the Outcome before this resolves. */
  async assess(refund: Refund): Promise<{ assessment: Assessment<RefundAbuse>; decided: Decided<RefundOutcome> }> {
    const assessment = await this.judge.assess(new RefundAbuse(refund));
    return { assessment, decided: await assessment.outcome<RefundOutcome>() };
  }

  /** Queues the assessment (inline when no queue is configured); resolves to the job id. */
  dispatch(refund: Refund): Promise<string> {
    return this.judge.dispatch(new RefundAbuse(refund));
  }
}
