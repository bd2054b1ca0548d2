import { Injectable } from '@nestjs/common';
import { EngineFailed, Judge } from 'nestjs-judgment';
import { RefundAbuse, type RefundOutcome } from './refund-abuse.judgment';

@Injectable()
export class RefundsService {
  constructor(private readonly judge: Judge) {}

  /** Decides a refund request; when the Engine cannot answer, the refund waits for a person. */
  async review(explanation: string, amount: number): Promise<RefundOutcome | 'on-hold'> {
    try {
      const assessment = await this.judge.assess(new RefundAbuse(explanation, amount));
      return await assessment.outcome();
    } catch (error) {
      if (error instanceof EngineFailed) return 'on-hold';
      throw error;
    }
  }
}
