import { Injectable } from '@nestjs/common';
import type { AssessmentRecord, ResolutionPolicy, Reviewer } from 'nestjs-judgment';

/** Who may resolve a Review. Named in JudgmentModule.forRoot({ resolutionPolicy: ReviewerPolicy }). */
@Injectable()
export class ReviewerPolicy implements ResolutionPolicy {
  canResolve(reviewer: Reviewer, record: AssessmentRecord): boolean {
    if (!('type' in reviewer) || reviewer.type !== 'staff') return false;
    return record.judgment !== 'refund-abuse' || String(reviewer.id).startsWith('refunds-');
  }
}
