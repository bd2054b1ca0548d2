import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { decisionMetadata } from '../decision/decision.decorator';
import type { Outcome } from '../definition/outcome';
import { UnknownDecision } from '../errors';
import { ReviewExpired, ReviewResolved } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { JudgmentLogger, describeError } from '../logging/judgment.logger';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { DEADLINE_RESOLVER, RecordWriter } from '../persistence/record.writer';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { ReviewBacklog } from './review-backlog.service';

/** The reviewer an expired Review is resolved by: the system, for the reason `deadline`. */
export const DEADLINE_REVIEWER = Object.freeze({
  type: DEADLINE_RESOLVER.resolverType,
  id: DEADLINE_RESOLVER.resolverId,
});

/** How many due records one sweep reads at a time. */
export const SWEEP_BATCH = 500;

/**
 * Review deadlines: a record that waits in Review past its Decision's `review.deadline` is resolved by the system with
 * the Decision's `onExpiry` Outcome. The write is one conditional UPDATE (still awaiting Review, deadline passed), so
 * a person resolving at the same moment and the expiry never both win. Runs from the queue's delayed job, the app's
 * sweep interval (queue off) or `judgment review:expire`.
 */
@Injectable()
export class ReviewDeadlines implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;

  constructor(
    private readonly rows: RecordWriter,
    private readonly registry: JudgmentRegistry,
    private readonly events: JudgmentEventsPublisher,
    private readonly logger: JudgmentLogger,
    @Inject(RESOLVED_JUDGMENT_OPTIONS) private readonly options: ResolvedJudgmentOptions,
    private readonly backlog: ReviewBacklog,
  ) {}

  onApplicationBootstrap(): void {
    const interval = this.options.reviewSweepInterval;
    if (interval === null || !this.rows.persistence.enabled || !this.anyDeadline()) return;
    this.timer = setInterval(() => void this.sweep(), interval);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
  }

  /**
   * Expires record `recordId` if it still awaits Review and its deadline has passed: resolves it with the Decision's
   * `onExpiry` Outcome as the system, then fires ReviewExpired and ReviewResolved. Resolves to the record, or null
   * when there was nothing to expire (resolved already, not due yet, no deadline, gone).
   */
  async expire(recordId: number, now: Date = new Date()): Promise<AssessmentRecord | null> {
    const record = await this.rows.findById(recordId);
    if (!record?.isAwaitingReview() || record.reviewDeadlineAt === null) return null;
    if (new Date(record.reviewDeadlineAt).getTime() > now.getTime()) return null;
    const { automatic, onExpiry } = this.expiryOf(record);
    const { written, record: fresh } = await this.rows.recordExpiry(record.id, String(onExpiry), now);
    if (!written || !fresh) return null;
    await this.events.emit(new ReviewExpired(fresh, automatic, onExpiry, new Date(fresh.reviewDeadlineAt as Date)));
    await this.events.emit(new ReviewResolved(fresh, automatic, onExpiry, DEADLINE_REVIEWER));
    return fresh;
  }

  /** The deadline of a record still awaiting Review, or null (resolved, gone, or no deadline). */
  async deadlineOf(recordId: number): Promise<Date | null> {
    const record = await this.rows.findById(recordId);
    return record?.isAwaitingReview() && record.reviewDeadlineAt !== null ? new Date(record.reviewDeadlineAt) : null;
  }

  /**
   * Expires every record whose deadline passed at `now`, in batches, earliest deadline first. A record that cannot be
   * expired (its Decision is no longer registered or declares no deadline) is logged and left in Review. Resolves to
   * the number of records expired.
   */
  async expireDue(now: Date = new Date()): Promise<number> {
    let expired = 0;
    const failed = new Set<number>();
    for (;;) {
      const due = (await this.rows.dueForExpiry(now, SWEEP_BATCH + failed.size)).filter((id) => !failed.has(id));
      if (due.length === 0) return expired;
      for (const id of due) {
        try {
          if (await this.expire(id, now)) expired++;
          else failed.add(id); // resolved by a person meanwhile: not due any more, never read again in this run
        } catch (error) {
          failed.add(id);
          this.logger.warn('Review deadline not applied.', { record: id, exception: describeError(error) });
        }
      }
    }
  }

  /**
   * One sweep of the interval: expires what is due, then forecasts each Judgment's backlog against its deadlines
   * (ReviewBacklogAtRisk once per risk episode). A sweep still running is not started twice.
   */
  private sweep(): Promise<number> {
    if (!this.sweeping) {
      this.sweeping = this.expireDue()
        .catch((error: unknown) => {
          this.logger.warn('Review deadline sweep failed.', { exception: describeError(error) });
          return 0;
        })
        .then(async (expired) => {
          await this.backlog.check().catch((error: unknown) => {
            this.logger.warn('Review backlog forecast failed.', { exception: describeError(error) });
          });
          return expired;
        })
        .finally(() => {
          this.sweeping = null;
        });
    }
    return this.sweeping;
  }

  /** The automatic Outcome and the `onExpiry` Outcome of a record's Decision, as the enum's values. */
  private expiryOf(record: AssessmentRecord): { automatic: Outcome; onExpiry: Outcome } {
    if (record.decision === null || !this.registry.hasDecision(record.decision)) {
      throw new UnknownDecision(
        `Record #${record.id} is past its review deadline, but its Decision ${record.decision} is not registered, so ` +
          `its onExpiry Outcome is unknown: add ${record.decision} to JudgmentModule.forFeature([...]).`,
      );
    }
    const metadata = decisionMetadata(this.registry.decision(record.decision));
    if (!metadata.reviewDeadline) {
      throw new UnknownDecision(
        `Record #${record.id} is past its review deadline, but ${metadata.name} no longer declares review.onExpiry: ` +
          'declare it again, or resolve the record by hand.',
      );
    }
    const automatic = metadata.outcomes.find((o) => String(o) === record.outcome) ?? (record.outcome as Outcome);
    return { automatic, onExpiry: metadata.reviewDeadline.onExpiry };
  }

  private anyDeadline(): boolean {
    return this.registry.decisions().some((cls) => decisionMetadata(cls).reviewDeadline !== null);
  }
}
