import { Injectable } from '@nestjs/common';
import { parseDuration } from '../decision/duration';
import { InvalidClaim, ResolutionForbidden, ReviewClaimConflict, UnknownRecord } from '../errors';
import { ReviewClaimed, ReviewReleased } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { EntityReference } from '../persistence/entity-reference';
import { RecordWriter } from '../persistence/record.writer';
import type { Reviewer } from '../persistence/reviewer';
import { ReviewAccess } from './review-access';
import { ReviewVotes } from './review-votes.service';
import { alreadyResolved, notAwaitingReview } from './review-resolver.service';
import { inSpan } from '../telemetry/judgment.tracing';

/** Options of a claim or a renewal. */
export interface ClaimOptions {
  /** How long the lease lasts: `'15m'`, `'90s'`, or milliseconds; 1 second to 24 hours. Default 15 minutes. */
  ttl?: string | number;
}

/** The default lease of a claim. */
export const DEFAULT_CLAIM_TTL = 15 * 60 * 1000;
/** The leases a claim may take: 1 second to 24 hours (a longer hold is a person away, not at work on the case). */
export const CLAIM_TTL_BOUNDS = { min: 1000, max: 24 * 3600 * 1000, text: '1 second to 24 hours' } as const;

/**
 * Claims on records in Review: a lease (holder and expiry) stored on the record, so two reviewers do not work one
 * case at once. Taking, renewing and releasing are each one conditional UPDATE; a live lease held by someone else is
 * a ReviewClaimConflict naming the holder and the expiry; an expired lease is free to take.
 */
@Injectable()
export class ReviewClaims {
  constructor(
    private readonly rows: RecordWriter,
    private readonly events: JudgmentEventsPublisher,
    private readonly access: ReviewAccess,
    private readonly votes: ReviewVotes,
  ) {}

  /**
   * Claims record `recordId` for `reviewer` for `ttl` (the ResolutionPolicy must let them resolve it). Claiming a
   * record one already holds extends the lease. Fires ReviewClaimed; resolves to the claimed record.
   */
  async claim(recordId: number, reviewer: Reviewer, options: ClaimOptions = {}): Promise<AssessmentRecord> {
    return inSpan('judgment.review.claim', { attributes: { 'judgment.record_id': recordId } }, () =>
      this.lease(recordId, reviewer, options, 'claim'),
    );
  }

  /** Extends the lease `reviewer` holds (a heartbeat); ReviewClaimConflict when someone else holds the record. */
  async renew(recordId: number, reviewer: Reviewer, options: ClaimOptions = {}): Promise<AssessmentRecord> {
    return inSpan('judgment.review.renew', { attributes: { 'judgment.record_id': recordId } }, () =>
      this.lease(recordId, reviewer, options, 'renew'),
    );
  }

  /**
   * Releases `reviewer`'s claim, so anyone may claim the record; fires ReviewReleased. Releasing a record nobody holds
   * changes nothing; one held by someone else is a ReviewClaimConflict.
   */
  async release(recordId: number, reviewer: Reviewer): Promise<AssessmentRecord> {
    return inSpan('judgment.review.release', { attributes: { 'judgment.record_id': recordId } }, () =>
      this.unlease(recordId, reviewer),
    );
  }

  private async unlease(recordId: number, reviewer: Reviewer): Promise<AssessmentRecord> {
    const holder = this.access.reviewerReference(reviewer);
    await this.awaiting(recordId);
    const { written, record: fresh } = await this.rows.releaseClaim(recordId, holder);
    const current = this.current(recordId, fresh);
    if (written) await this.events.emit(new ReviewReleased(current, reviewer));
    else this.refuse(current, 'released');
    return current;
  }

  private async lease(
    recordId: number,
    reviewer: Reviewer,
    options: ClaimOptions,
    mode: 'claim' | 'renew',
  ): Promise<AssessmentRecord> {
    const ttl = claimTtl(options);
    const holder = this.access.reviewerReference(reviewer);
    const record = await this.awaiting(recordId);
    await this.access.authorize(record, reviewer, 'claim');
    if (mode === 'claim') await this.checkVoter(record, reviewer, holder);
    const expiresAt = new Date(Date.now() + ttl);
    const { written, record: fresh } = await this.rows.recordClaim(recordId, holder, expiresAt, mode);
    const current = this.current(recordId, fresh);
    if (!written) {
      this.refuse(current, mode === 'claim' ? 'claimed' : 'renewed');
      if (mode === 'renew') this.refuseLapsedRenewal(current, holder);
      throw new InvalidClaim(
        mode === 'renew'
          ? `Record #${recordId} is not claimed by ${holder.type} #${holder.id}, so there is no lease to renew: ` +
              'claim it first.'
          : `Record #${recordId} changed while it was being claimed; claim it again.`,
      );
    }
    if (mode === 'claim') await this.events.emit(new ReviewClaimed(current, reviewer, new Date(expiresAt)));
    return current;
  }

  /**
   * N-of-M review: nobody holds a case they cannot work, so the others can take it — a reviewer who already voted may
   * not claim it (InvalidClaim), nor, once the votes disagree, anyone the policy's canAdjudicate does not allow
   * (ResolutionForbidden).
   */
  private async checkVoter(record: AssessmentRecord, reviewer: Reviewer, holder: EntityReference): Promise<void> {
    const required = this.votes.required(record);
    if (required <= 1) return;
    const cast = await this.votes.of(record.id);
    if (cast.length >= required) {
      if (await this.access.mayAdjudicate(record, reviewer)) return;
      throw new ResolutionForbidden(
        `Record #${record.id} awaits adjudication (its ${required} votes disagree), and the ResolutionPolicy's ` +
          `canAdjudicate does not allow ${holder.type} #${holder.id} to settle it, so they may not claim it.`,
      );
    }
    if (cast.some((vote) => vote.reviewer.type === holder.type && vote.reviewer.id === holder.id)) {
      throw new InvalidClaim(
        `${holder.type} #${holder.id} already voted on record #${record.id}, so they may not claim it: the case is ` +
          "left free for the other reviewers' votes.",
      );
    }
  }

  /** The record, which must exist and await Review. */
  private async awaiting(recordId: number): Promise<AssessmentRecord> {
    if (!Number.isSafeInteger(recordId) || recordId < 1) {
      throw new InvalidClaim(`A record id is a positive whole number, not ${JSON.stringify(recordId)}.`);
    }
    const record = await this.rows.findById(recordId);
    if (!record) throw new UnknownRecord(recordId);
    if (record.isResolved()) throw alreadyResolved(record);
    if (!record.isAwaitingReview()) throw notAwaitingReview(record);
    return record;
  }

  private current(recordId: number, fresh: AssessmentRecord | null): AssessmentRecord {
    if (!fresh) throw new UnknownRecord(recordId);
    return fresh;
  }

  /** A renewal of the reviewer's own lease that ran out: a conflict (the record may be claimed again, not renewed). */
  private refuseLapsedRenewal(record: AssessmentRecord, holder: { type: string; id: string }): void {
    if (record.claimHolderType !== holder.type || record.claimHolderId !== holder.id || !record.claimExpiresAt) return;
    const expiresAt = new Date(record.claimExpiresAt);
    throw new ReviewClaimConflict(
      record.id,
      holder,
      expiresAt,
      'renewed',
      `Record #${record.id}: the claim of ${holder.type} #${holder.id} ran out at ${expiresAt.toISOString()}; ` +
        'claim it again instead of renewing.',
    );
  }

  /** Why a conditional write was refused, as the record now is: resolved meanwhile, or someone else's live claim. */
  private refuse(record: AssessmentRecord, action: string): void {
    if (record.isResolved()) throw alreadyResolved(record);
    const claim = record.liveClaim();
    if (claim) throw new ReviewClaimConflict(record.id, claim.holder, claim.expiresAt, action);
  }
}

/** The lease asked for, in milliseconds; InvalidClaim naming the bound when it is unusable. */
export function claimTtl(options: ClaimOptions): number {
  if (options.ttl === undefined) return DEFAULT_CLAIM_TTL;
  const parsed = parseDuration(options.ttl, CLAIM_TTL_BOUNDS);
  if ('problem' in parsed) throw new InvalidClaim(`The claim's ttl is unusable: ${parsed.problem}.`);
  return parsed.ms;
}
