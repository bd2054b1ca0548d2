import type { ReviewCause, ReviewReason } from '../assessment/awaiting-review';
import type { DecisionTrace } from '../decision/decision-trace';
import type { CostBasis } from '../engines/pricing/round-cost';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { AWAITING_REVIEW, DEADLINE_PENDING, UNASSESSED, WRITTEN_BY_JOB } from './record-indexes';

/** One attempt to assess a Judgment: its answers (or failure), provenance, Outcome, Review and Resolution. */
@Entity({ name: 'judgment_assessments' })
@Index('judgment_assessments_subject_index', ['subjectType', 'subjectId'])
@Index('judgment_assessments_awaiting_review_index', ['id'], { where: AWAITING_REVIEW })
@Index('judgment_assessments_awaiting_review_judgment_index', ['judgment', 'id'], { where: AWAITING_REVIEW })
@Index('judgment_assessments_unassessed_index', ['id'], { where: UNASSESSED })
@Index('judgment_assessments_unassessed_judgment_index', ['judgment', 'id'], { where: UNASSESSED })
@Index('judgment_assessments_job_index', ['jobId'], { where: WRITTEN_BY_JOB })
@Index('judgment_assessments_audit_index', ['auditRequestedAt', 'auditedAt'])
@Index('judgment_assessments_awaiting_holder_index', ['claimHolderType', 'claimHolderId', 'id'], {
  where: AWAITING_REVIEW,
})
// PostgreSQL only, on an expression TypeORM cannot declare (migration ClaimHolderKey1765540000000): declared so that
// synchronize leaves it alone.
@Index('judgment_assessments_awaiting_claim_key_index', { synchronize: false })
@Index('judgment_assessments_review_deadline_index', ['reviewDeadlineAt'], { where: DEADLINE_PENDING })
@Index('judgment_assessments_awaiting_deadline_index', ['reviewDeadlineAt', 'id'], { where: AWAITING_REVIEW })
@Index('judgment_assessments_awaiting_margin_index', ['decisionMargin', 'id'], { where: AWAITING_REVIEW })
@Index('judgment_assessments_awaiting_judgment_deadline_index', ['judgment', 'reviewDeadlineAt', 'id'], {
  where: AWAITING_REVIEW,
})
@Index('judgment_assessments_awaiting_judgment_margin_index', ['judgment', 'decisionMargin', 'id'], {
  where: AWAITING_REVIEW,
})
@Index('judgment_assessments_awaiting_cause_index', ['reviewCause', 'id'], { where: AWAITING_REVIEW })
@Index('judgment_assessments_awaiting_cause_deadline_index', ['reviewCause', 'reviewDeadlineAt', 'id'], {
  where: AWAITING_REVIEW,
})
@Index('judgment_assessments_awaiting_cause_margin_index', ['reviewCause', 'decisionMargin', 'id'], {
  where: AWAITING_REVIEW,
})
export class AssessmentRecord {
  @PrimaryGeneratedColumn()
  id!: number;

  /** The Judgment's registered name. */
  @Index('judgment_assessments_judgment_index')
  @Column({ type: 'varchar', length: 255 })
  judgment!: string;

  @Column({ name: 'subject_type', type: 'varchar', length: 255, nullable: true })
  subjectType!: string | null;

  @Column({ name: 'subject_id', type: 'varchar', length: 255, nullable: true })
  subjectId!: string | null;

  /** The Evidence as asked (untrusted text as plain strings); null when evidence storage is off. */
  @Column({ type: 'json', nullable: true })
  evidence!: Record<string, unknown> | null;

  @Column({ name: 'evidence_fingerprint', type: 'character', length: 64 })
  evidenceFingerprint!: string;

  @Column({ name: 'untrusted_paths', type: 'json' })
  untrustedPaths!: string[];

  @Column({ type: 'varchar', length: 255, nullable: true })
  language!: string | null;

  @Column({ name: 'questions_fingerprint', type: 'character', length: 64 })
  questionsFingerprint!: string;

  /** The encoded answers; for an Unassessed attempt, those its round had before it failed (null when none). */
  @Column({ type: 'json', nullable: true })
  answers!: Record<string, unknown> | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  engine!: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  model!: string | null;

  @Column({ name: 'request_id', type: 'varchar', length: 255, nullable: true })
  requestId!: string | null;

  @Column({ name: 'provenance_details', type: 'json', nullable: true })
  provenanceDetails!: Record<string, unknown> | null;

  /** The error's class name for an Unassessed attempt (e.g. `EngineRateLimited`). */
  @Column({ name: 'failure_type', type: 'varchar', length: 255, nullable: true })
  failureType!: string | null;

  @Column({ name: 'failure_message', type: 'text', nullable: true })
  failureMessage!: string | null;

  /** For a cache hit: the id of the record whose answers it reused (not a foreign key; may outlive it). */
  @Column({ name: 'cached_from_id', type: 'integer', nullable: true })
  cachedFromId!: number | null;

  /**
   * The queued assess job that made the attempt (null inline): a re-run of that job (its worker died after this
   * record was written) finds the answer here and decides it, instead of paying for a second round.
   */
  @Column({ name: 'job_id', type: 'varchar', length: 255, nullable: true })
  jobId!: string | null;

  /**
   * What the rounds this record is the first to hold cost, in `costCurrency`: its own round (0 for a cache hit or for
   * answers reused from an earlier record, which holds their cost). Null when the connection declares no `price`, or
   * what was paid is not known (see `costBasis.note`); never made up.
   */
  @Column({ type: 'numeric', precision: 24, scale: 12, nullable: true, transformer: { to: same, from: decimal } })
  cost!: number | null;

  /** The currency of `cost` (the connection's `price.currency`), or null. */
  @Column({ name: 'cost_currency', type: 'varchar', length: 16, nullable: true })
  costCurrency!: string | null;

  /** How `cost` was reached (token counts, requests, the price) or why it is null; null on records from before. */
  @Column({ name: 'cost_basis', type: 'json', nullable: true })
  costBasis!: CostBasis | null;

  /** The registered name of the Decision last applied. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  decision!: string | null;

  @Column({ name: 'decision_version', type: 'varchar', length: 255, nullable: true })
  decisionVersion!: string | null;

  /** The thresholds the Decision decided with (its `thresholds` property), or null when it declares none. */
  @Column({ name: 'decision_thresholds', type: 'json', nullable: true })
  decisionThresholds!: Record<string, number> | null;

  @Column({ name: 'outcome_type', type: 'varchar', length: 255, nullable: true })
  outcomeType!: string | null;

  /** The automatic Outcome, as a string. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  outcome!: string | null;

  /** How the automatic Outcome was reached (the rule that fired, answers read, thresholds compared); null before. */
  @Column({ name: 'decision_trace', type: 'json', nullable: true })
  decisionTrace!: DecisionTrace | null;

  /**
   * The least |value − threshold| of the comparisons the Decision made (decisionMargin): small is a close call. The
   * review desk lists the least confident cases first by it. Null when no threshold was compared.
   */
  @Column({ name: 'decision_margin', type: 'double precision', nullable: true })
  decisionMargin!: number | null;

  @Column({ name: 'review_requested_at', type: Date, nullable: true })
  reviewRequestedAt!: Date | null;

  /**
   * Why the record went to Review, in words: the rule that gave a Review Outcome, or what a guard found (the
   * calibration drift guard: the model or Questions differ from the lock's). Null when never in Review.
   */
  @Column({ name: 'review_reason', type: 'text', nullable: true })
  reviewReason!: string | null;

  /** What sent the record to Review: `band` (a Review Outcome), `drift`, `collapse`; null when never in Review. */
  @Column({ name: 'review_cause', type: 'varchar', length: 32, nullable: true })
  reviewCause!: ReviewCause | null;

  /** The reviewer's Outcome, as a string. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  resolution!: string | null;

  @Column({ name: 'resolver_type', type: 'varchar', length: 255, nullable: true })
  resolverType!: string | null;

  @Column({ name: 'resolver_id', type: 'varchar', length: 255, nullable: true })
  resolverId!: string | null;

  @Column({ name: 'resolved_at', type: Date, nullable: true })
  resolvedAt!: Date | null;

  /** Who holds the claim on this record in Review (a lease), as a reviewer reference; null when never claimed. */
  @Column({ name: 'claim_holder_type', type: 'varchar', length: 255, nullable: true })
  claimHolderType!: string | null;

  @Column({ name: 'claim_holder_id', type: 'varchar', length: 255, nullable: true })
  claimHolderId!: string | null;

  /**
   * When the claim holder took the claim (kept through renewals, cleared on release): with `resolved_at`, the time the
   * reviewer spent on the case when the holder resolves it. Null when unclaimed, and on records claimed before it was
   * kept (migration 1765500000000).
   */
  @Column({ name: 'claimed_at', type: Date, nullable: true })
  claimedAt!: Date | null;

  /** When the claim's lease ends; after it the record is free to claim again. */
  @Column({ name: 'claim_expires_at', type: Date, nullable: true })
  claimExpiresAt!: Date | null;

  /** When a record in Review resolves to its Decision's `onExpiry` Outcome; null when the Decision declares none. */
  @Column({ name: 'review_deadline_at', type: Date, nullable: true })
  reviewDeadlineAt!: Date | null;

  /** When the automatic Outcome was sampled for an audit (it still stood and its Actions ran); null when not. */
  @Column({ name: 'audit_requested_at', type: Date, nullable: true })
  auditRequestedAt!: Date | null;

  /** The auditor's Outcome, as a string: equal to `outcome` when the automatic Outcome was right. */
  @Column({ name: 'audit_resolution', type: 'varchar', length: 255, nullable: true })
  auditResolution!: string | null;

  @Column({ name: 'audit_resolver_type', type: 'varchar', length: 255, nullable: true })
  auditResolverType!: string | null;

  @Column({ name: 'audit_resolver_id', type: 'varchar', length: 255, nullable: true })
  auditResolverId!: string | null;

  @Column({ name: 'audited_at', type: Date, nullable: true })
  auditedAt!: Date | null;

  @Index('judgment_assessments_created_at_index')
  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt!: Date;

  /** A failed attempt: no answers, no Outcome. */
  isUnassessed(): boolean {
    return this.failureType !== null;
  }

  /** In Review and not yet resolved. */
  isAwaitingReview(): boolean {
    return this.reviewRequestedAt !== null && this.resolvedAt === null;
  }

  /** Why the record went to Review, or null when it never did (a record from before causes were kept: `band`). */
  reviewReasonOf(): ReviewReason | null {
    if (this.reviewRequestedAt === null) return null;
    return { cause: this.reviewCause ?? 'band', text: this.reviewReason ?? '' };
  }

  isResolved(): boolean {
    return this.resolvedAt !== null;
  }

  /** The live claim at `now` (holder and expiry), or null when unclaimed or the lease ran out. */
  liveClaim(now: Date = new Date()): { holder: { type: string; id: string }; expiresAt: Date } | null {
    if (this.claimHolderType === null || this.claimHolderId === null || this.claimExpiresAt === null) return null;
    const expiresAt = new Date(this.claimExpiresAt);
    if (expiresAt.getTime() <= now.getTime()) return null;
    return { holder: { type: this.claimHolderType, id: this.claimHolderId }, expiresAt };
  }

  /**
   * Seconds the resolver spent on the case: from taking the claim to the Resolution, when the resolver held the claim
   * (a Resolution without a claim, over someone else's, or by the deadline has none). Null otherwise.
   */
  reviewSeconds(): number | null {
    if (this.resolvedAt === null || this.claimedAt === null) return null;
    if (this.claimHolderType !== this.resolverType || this.claimHolderId !== this.resolverId) return null;
    const ms = new Date(this.resolvedAt).getTime() - new Date(this.claimedAt).getTime();
    return ms < 0 ? null : Math.round(ms / 1000);
  }

  /** Sampled for an audit and not yet audited. */
  isAwaitingAudit(): boolean {
    return this.auditRequestedAt !== null && this.auditedAt === null;
  }
}

function same(value: unknown): unknown {
  return value;
}

/** A numeric column as a number (PostgreSQL returns numeric as a string, to keep its digits). */
function decimal(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
