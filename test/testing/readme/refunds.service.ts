import { Injectable } from '@nestjs/common';
import { AwaitingReview, EngineFailed, Judge } from 'nestjs-judgment';
import { RefundAbuse, type RefundOutcome } from './refund-abuse.judgment';

@Injectable()
export class RefundsService {
  constructor(private readonly judge: Judge) {}

  /** Decides a refund request; when the case goes to Review or the Engine cannot answer, it waits for a person. */
  async review(explanation: string, amount: number): Promise<RefundOutcome | 'on-hold'> {
    try {
      const assessment = await this.judge.assess(new RefundAbuse(explanation, amount));
      const decided = await assessment.outcome<RefundOutcome>();
      return decided instanceof AwaitingReview ? 'on-hold' : decided;
    } catch (error) {
      if (error instanceof EngineFailed) return 'on-hold';
      throw error;
    }
  }
}
