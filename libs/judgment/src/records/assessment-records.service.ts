import { Injectable } from '@nestjs/common';
import type { Assessment } from '../assessment/assessment';
import type { Decision } from '../decision/decision.decorator';
import type { Judgment, JudgmentClass } from '../definition/judgment.decorator';
import type { Decided } from '../assessment/awaiting-review';
import type { Outcome } from '../definition/outcome';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { EntityReference } from '../persistence/entity-reference';
import type { Reviewer } from '../persistence/reviewer';
import { ReviewAccess } from '../review/review-access';
import { type ClaimOptions, ReviewClaims } from '../review/review-claims.service';
import { ReviewDeadlines } from '../review/review-deadlines.service';
import { ReviewResolver } from '../review/review-resolver.service';
import { ReviewVotes, type VotesView } from '../review/review-votes.service';
import type { ReviewerAgreement } from '../review/reviewer-agreement';
import { type RecordFilter, RecordQueries, type ReviewListFilter } from './record-queries.service';
import { RecordRetention } from './record-retention.service';
import { Replay } from './replay.service';

/**
 * The one injectable apps use for `judgment_assessments` records (the README documents its methods): it hands each
 * call to the service of that job — Replay, ReviewResolver, RecordQueries, RecordRetention.
 */
@Injectable()
export class AssessmentRecords {
  constructor(
    private readonly replay: Replay,
    private readonly resolver: ReviewResolver,
    private readonly queries: RecordQueries,
    private readonly retention: RecordRetention,
    private readonly claims: ReviewClaims,
    private readonly deadlines: ReviewDeadlines,
    private readonly access: ReviewAccess,
    private readonly votes: ReviewVotes,
  ) {}

  /**
   * N-of-M review: the votes on a record as `viewer` may see them — how many are required and cast, whether they
   * disagree (adjudication), and the votes themselves only once the viewer voted, all are in, or the record is resolved
   * (blind review). Null when the record's Decision requires a single Resolution.
   */
  async reviewVotes(record: AssessmentRecord, viewer: Reviewer | null): Promise<VotesView | null> {
    return this.votes.viewFor(record, viewer === null ? null : this.access.reviewerReference(viewer));
  }

  /** Whether the ResolutionPolicy lets `reviewer` adjudicate the record (its optional canAdjudicate; false without). */
  mayAdjudicate(record: AssessmentRecord, reviewer: Reviewer): Promise<boolean> {
    return this.access.mayAdjudicate(record, reviewer);
  }

  /**
   * Agreement between reviewers from their votes on N-of-M Reviews: raw agreement and Cohen's kappa per Judgment and
   * per reviewer pair, each with the number of pairs of votes it rests on (of one Judgment when named).
   */
  reviewerAgreement(judgment?: string): Promise<ReviewerAgreement> {
    return this.votes.agreement(judgment);
  }

  /**
   * The `{ type, id }` a reviewer is recorded under (as resolver, auditor or claim holder): a saved entity's name and
   * primary key, or the `{ type, id }` given. InvalidReviewer when it is neither, or does not fit the columns.
   */
  reviewerReference(reviewer: Reviewer): EntityReference {
    return this.access.reviewerReference(reviewer);
  }

  /**
   * Replay: the Assessment the record holds, over `judgment` or one constructed from the record's Subject. It is not
   * linked: deciding it computes the Outcome and records, logs and fires nothing.
   */
  rebuild<J extends Judgment = Judgment>(record: AssessmentRecord, judgment?: J): Promise<Assessment<J>> {
    return this.replay.rebuild(record, judgment);
  }

  /** Rebuilds the record and applies its Judgment's default Decision, recording the Outcome on THIS record. */
  outcome<O extends Outcome = Outcome>(record: AssessmentRecord, judgment?: Judgment): Promise<Decided<O>> {
    return this.replay.outcome<O>(record, judgment);
  }

  /** Rebuilds the record and applies `decision`, recording the Outcome on THIS record (events, log, maybe Review). */
  decide<J extends Judgment, O extends Outcome>(
    record: AssessmentRecord,
    decision: Decision<J, O>,
    judgment?: J,
  ): Promise<Decided<O>> {
    return this.replay.decide(record, decision, judgment);
  }

  /**
   * Resolves a record in Review with a reviewer's Outcome. The app's ResolutionPolicy is asked first (none configured
   * refuses everyone: ResolutionForbidden); then InvalidResolution when the record is already resolved, is not
   * awaiting Review, or the resolution is not an Outcome of its Decision or itself requires Review. Of concurrent
   * reviewers exactly one wins. Resolves to the refreshed record.
   */
  resolve(record: AssessmentRecord, resolution: Outcome, reviewer: Reviewer): Promise<AssessmentRecord> {
    return this.resolver.resolve(record, resolution, reviewer);
  }

  /**
   * Claims a record in Review for a reviewer: a lease (`ttl`, default 15 minutes, 1 second to 24 hours) taken in one
   * conditional UPDATE. ReviewClaimConflict (naming the holder and expiry) while someone else's lease is live; an
   * expired lease is free to take; claiming one's own claim extends it. The ResolutionPolicy must let the reviewer
   * resolve the record. Fires ReviewClaimed.
   */
  claim(recordId: number, reviewer: Reviewer, options: ClaimOptions = {}): Promise<AssessmentRecord> {
    return this.claims.claim(recordId, reviewer, options);
  }

  /** Extends the reviewer's own lease (a heartbeat); ReviewClaimConflict when someone else holds the record. */
  renew(recordId: number, reviewer: Reviewer, options: ClaimOptions = {}): Promise<AssessmentRecord> {
    return this.claims.renew(recordId, reviewer, options);
  }

  /** Releases the reviewer's claim (fires ReviewReleased); a record nobody holds is left as it is. */
  release(recordId: number, reviewer: Reviewer): Promise<AssessmentRecord> {
    return this.claims.release(recordId, reviewer);
  }

  /**
   * Resolves every record in Review past its Decision's deadline with the Decision's `onExpiry` Outcome (as the
   * system, reason `deadline`; ReviewExpired then ReviewResolved). Resolves to the number expired.
   */
  expireDue(): Promise<number> {
    return this.deadlines.expireDue();
  }

  /** Records in Review and not yet resolved: oldest first, or by `sort` (nearest deadline, least confident). */
  awaitingReview(filter: ReviewListFilter = {}): Promise<AssessmentRecord[]> {
    return this.queries.awaitingReview(filter);
  }

  /** How many records await Review, by Judgment name (Judgments with none are left out). */
  backlog(): Promise<Record<string, number>> {
    return this.queries.backlog();
  }

  /** The Subjects of records (one query per entity type), by record id; null where a Subject is gone or unknown. */
  subjects(records: readonly AssessmentRecord[]): Promise<Map<number, object | null>> {
    return this.queries.subjects(records);
  }

  /** Automatic Outcomes sampled for an audit and not yet audited (listed apart from Reviews). */
  awaitingAudit(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.queries.awaitingAudit(filter);
  }

  /** Audited automatic Outcomes. */
  audited(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.queries.audited(filter);
  }

  /**
   * Audits an automatic Outcome: the auditor's Outcome (the automatic one when it was right) is recorded beside it,
   * as race-safe as a Resolution; the automatic Outcome stands. Announces AuditResolved (and AgreementDropped).
   */
  resolveAudit(record: AssessmentRecord, auditOutcome: Outcome, reviewer: Reviewer): Promise<AssessmentRecord> {
    return this.resolver.resolveAudit(record, auditOutcome, reviewer);
  }

  /** Records with answers (not Unassessed attempts). */
  answered(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.queries.answered(filter);
  }

  /** Unassessed attempts (the Engine failed). */
  unassessed(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.queries.unassessed(filter);
  }

  /** Every record of a Subject. */
  forSubject(subject: object, filter: Omit<RecordFilter, 'subject'> = {}): Promise<AssessmentRecord[]> {
    return this.queries.forSubject(subject, filter);
  }

  /** The Subject's latest attempt at a Judgment (highest id; may be an Unassessed attempt), or null. */
  latest(subject: object, judgment: JudgmentClass | string): Promise<AssessmentRecord | null> {
    return this.queries.latest(subject, judgment);
  }

  /** The record with this id, or null. */
  find(id: number): Promise<AssessmentRecord | null> {
    return this.queries.find(id);
  }

  /**
   * Deletes records created more than `persistence.retentionDays` days ago (null keeps everything). Resolves to the
   * number of records deleted.
   */
  prune(): Promise<number> {
    return this.retention.prune();
  }
}
