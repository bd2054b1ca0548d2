// Fixtures of the review desk suites: a ResolutionPolicy for staff (lead may override a claim), a Decision with a
// review deadline and its Judgment, and a listener that keeps the desk's events in order.
import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import {
  type Assessment,
  type AssessmentRecord,
  Decision,
  Evidence,
  Judgment,
  Likelihood,
  type ResolutionPolicy,
  type Reviewer,
  ReviewClaimed,
  ReviewExpired,
  ReviewReleased,
  ReviewResolved,
} from 'nestjs-judgment';
import { RefundOutcome, type ReviewApp } from '../review/review.fixtures';

/** Staff may resolve; the reviewer `staff #lead` may also resolve over someone else's claim. */
@Injectable()
export class StaffPolicy implements ResolutionPolicy {
  canResolve(reviewer: Reviewer): boolean {
    return (reviewer as { type?: string }).type === 'staff';
  }

  canOverrideClaim(reviewer: Reviewer, _record: AssessmentRecord): boolean {
    return (reviewer as { id?: unknown }).id === 'lead';
  }
}

/** Escalates between .30 and .65; an Escalation nobody resolves within 2 seconds is rejected. */
@Decision({
  outcomes: RefundOutcome,
  review: { outcomes: [RefundOutcome.Escalate], deadline: '2s', onExpiry: RefundOutcome.Reject },
  name: 'deadline-refund-decision',
  outcomeType: 'RefundOutcome',
})
export class DeadlineRefundDecision implements Decision<DeadlineRefund, RefundOutcome> {
  decide(assessment: Assessment<DeadlineRefund>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return RefundOutcome.Reject;
    return abusive.above(0.3) ? RefundOutcome.Escalate : RefundOutcome.Approve;
  }
}

@Judgment({ name: 'deadline-refund', decision: () => DeadlineRefundDecision })
export class DeadlineRefund implements Judgment {
  constructor(readonly text: string) {}

  evidence() {
    return { text: Evidence.untrusted(this.text) };
  }

  questions() {
    return { abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?') };
  }
}

/** The desk's events in the order they fired. */
@Injectable()
export class DeskEvents {
  readonly events: Array<{ name: string; event: any }> = [];

  @OnEvent(ReviewClaimed.NAME)
  claimed(event: ReviewClaimed): void {
    this.events.push({ name: ReviewClaimed.NAME, event });
  }

  @OnEvent(ReviewReleased.NAME)
  released(event: ReviewReleased): void {
    this.events.push({ name: ReviewReleased.NAME, event });
  }

  @OnEvent(ReviewExpired.NAME)
  expired(event: ReviewExpired): void {
    this.events.push({ name: ReviewExpired.NAME, event });
  }

  @OnEvent(ReviewResolved.NAME)
  resolved(event: ReviewResolved): void {
    this.events.push({ name: ReviewResolved.NAME, event });
  }

  /** The names of the events about one record, in order. */
  namesFor(recordId: number): string[] {
    return this.events.filter(({ event }) => event.record?.id === recordId).map(({ name }) => name);
  }

  of<E>(cls: { NAME: string }, recordId?: number): E[] {
    return this.events
      .filter(({ name, event }) => name === cls.NAME && (recordId === undefined || event.record?.id === recordId))
      .map(({ event }) => event as E);
  }
}

/** Assesses a DeadlineRefund with this text and decides it; resolves to the record (in Review for `abusive=0.5`). */
export async function decidedDeadlineRefund(context: ReviewApp, text: string): Promise<AssessmentRecord> {
  const judgment = new DeadlineRefund(text);
  const assessment = await context.judge.assess(judgment);
  await (assessment as Assessment<DeadlineRefund>).outcome();
  const [record] = await context.dataSource.query(`SELECT max(id) AS id FROM judgment_assessments`);
  return context.row(Number(record.id));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
