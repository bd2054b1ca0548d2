import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { InvalidResolution, ReviewClaimConflict } from '../errors';
import type { ReviewVote } from '../events/judgment.events';
import { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { EntityReference } from '../persistence/entity-reference';
import { RecordWriter } from '../persistence/record.writer';
import { AWAITING_REVIEW } from '../persistence/record-indexes';
import { decisionMetadata } from '../decision/decision.decorator';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { type ReviewVoteRow, type ReviewerAgreement, reviewerAgreement } from './reviewer-agreement';

/** The table of individual Resolutions (migration ReviewVotes1765530000000). */
export const VOTES_TABLE = 'judgment_review_votes';

/** What casting a vote did. */
export type VoteResult =
  | { readonly kind: 'counted'; readonly votes: ReviewVote[] }
  | { readonly kind: 'agreed'; readonly votes: ReviewVote[] }
  | { readonly kind: 'disagreed'; readonly votes: ReviewVote[] };

/** The votes on a record as the one looking may see them (blind until they voted, or voting is over). */
export interface VotesView {
  /** Votes the Decision requires. */
  readonly required: number;
  /** Votes cast so far. */
  readonly cast: number;
  /** The required votes are in and disagree: only an adjudicator can settle the case now. */
  readonly needsAdjudication: boolean;
  /** Whether the one looking has voted. */
  readonly voted: boolean;
  /** The votes, or null while they are hidden from the one looking (they have not voted and voting goes on). */
  readonly votes: ReviewVote[] | null;
}

interface VoteRow {
  reviewer_type: string;
  reviewer_id: string;
  outcome: string;
  created_at: Date | string;
}

/**
 * The independent Resolutions of an N-of-M Review (`review: { reviewers }`). A vote is cast in one transaction that
 * first locks the record's row (PostgreSQL: SELECT … FOR UPDATE), so of two last votes at once one waits for the other
 * and sees it: exactly one of them completes the count, and the record is resolved (or marked for adjudication) once.
 * The unique (record, reviewer) constraint refuses a reviewer's second vote even from two requests at once.
 */
@Injectable()
export class ReviewVotes {
  /** The last vote cast on SQLite, which the next one waits for (see serialized). */
  private sqliteVotes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly rows: RecordWriter,
    private readonly registry: JudgmentRegistry,
  ) {}

  /** The votes the record's Decision requires (1 when it is not registered or declares none). */
  required(record: AssessmentRecord): number {
    if (record.decision === null || !this.registry.hasDecision(record.decision)) return 1;
    return decisionMetadata(this.registry.decision(record.decision)).reviewers;
  }

  /**
   * The votes on a record as `viewer` may see them (see view), or null when its Decision requires a single Resolution
   * (then the votes' table is not read: an app that never asks for several reviewers works without it).
   */
  async viewFor(record: AssessmentRecord, viewer: EntityReference | null): Promise<VotesView | null> {
    const required = this.required(record);
    return required > 1 ? this.view(record, required, viewer) : null;
  }

  /**
   * Deletes the votes cast before `cutoff` (retention: a vote is never older than its record, so these are votes on
   * records the same prune removes). Nothing when the database has no votes' table. Resolves to the votes deleted.
   */
  async prune(cutoff: Date): Promise<number> {
    if (await this.tableMissing()) return 0;
    const manager = this.rows.repository().manager;
    const postgres = manager.connection.options.type === 'postgres';
    const result = await manager
      .createQueryBuilder()
      .delete()
      .from(VOTES_TABLE)
      .where('created_at < :cutoff', { cutoff: postgres ? cutoff : sqliteTime(cutoff) })
      .execute();
    return result.affected ?? 0;
  }

  /** Whether the database lacks the votes' table (migration ReviewVotes1765530000000 not run). */
  async tableMissing(): Promise<boolean> {
    const manager = this.rows.repository().manager;
    const rows: unknown[] =
      manager.connection.options.type === 'postgres'
        ? await manager.query('SELECT 1 WHERE to_regclass($1) IS NOT NULL', [VOTES_TABLE])
        : await manager.query(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, [VOTES_TABLE]);
    return rows.length === 0;
  }

  /** Raw agreement and Cohen's kappa per Judgment and per reviewer pair, from every vote (of one Judgment if named). */
  async agreement(judgment?: string): Promise<ReviewerAgreement> {
    return reviewerAgreement(await this.all(judgment));
  }

  /**
   * Records `reviewer`'s vote `outcome` on the record, requiring `required` votes. When it is the last one and all
   * agree, the record is resolved with that Outcome (`resolver` the last voter) in the same transaction. Refuses a
   * record resolved meanwhile or no longer in Review, one whose votes are all in (adjudication), a second vote of the
   * same reviewer, and a record someone else holds a live claim on. The voter's own claim is released.
   */
  async cast(
    recordId: number,
    outcome: string,
    reviewer: EntityReference,
    required: number,
  ): Promise<{ result: VoteResult; record: AssessmentRecord }> {
    const manager = this.rows.repository().manager;
    const postgres = manager.connection.options.type === 'postgres';
    const result = await this.serialized(!postgres, () =>
      manager.transaction(async (tx) => {
        const record = await tx.getRepository(AssessmentRecord).findOne({
          where: { id: recordId },
          ...(postgres ? { lock: { mode: 'pessimistic_write' as const } } : {}),
        });
        if (!record) throw new InvalidResolution(`Record #${recordId} no longer exists (was it pruned?).`);
        if (record.isResolved()) {
          throw new InvalidResolution(
            `Record #${record.id} is already resolved (${JSON.stringify(record.resolution)} by ${record.resolverType} ` +
              `#${record.resolverId}); a Resolution is final.`,
          );
        }
        if (!record.isAwaitingReview()) {
          throw new InvalidResolution(`Record #${record.id} is not awaiting Review, so it takes no vote.`);
        }
        const claim = record.liveClaim();
        if (claim && (claim.holder.type !== reviewer.type || claim.holder.id !== reviewer.id)) {
          throw new ReviewClaimConflict(record.id, claim.holder, claim.expiresAt, 'voted on');
        }
        const before = await this.read(tx, recordId);
        const own = before.find((vote) => sameReviewer(vote.reviewer, reviewer));
        if (own) throw alreadyVoted(recordId, reviewer, own.outcome);
        if (before.length >= required) throw awaitsAdjudication(recordId, required);
        try {
          await tx.query(
            `INSERT INTO ${VOTES_TABLE} (record_id, judgment, reviewer_type, reviewer_id, outcome) ` +
              (postgres ? 'VALUES ($1, $2, $3, $4, $5)' : 'VALUES (?, ?, ?, ?, ?)'),
            [recordId, record.judgment, reviewer.type, reviewer.id, outcome],
          );
        } catch (error) {
          if (isUniqueViolation(error)) throw alreadyVoted(recordId, reviewer, null);
          throw error;
        }
        const votes = await this.read(tx, recordId);
        const update = tx.createQueryBuilder().update(AssessmentRecord).where('id = :id', { id: recordId });
        update.andWhere(AWAITING_REVIEW);
        if (votes.length < required) {
          // The voter's claim is released, so the next reviewer can take the case.
          await this.releaseOwnClaim(tx, recordId, reviewer);
          return { kind: 'counted' as const, votes };
        }
        if (votes.every((vote) => vote.outcome === outcome)) {
          const written = await update
            .set({
              resolution: outcome,
              resolverType: reviewer.type,
              resolverId: reviewer.id,
              resolvedAt: new Date(),
            })
            .execute();
          if (written.affected === 0) throw new InvalidResolution(`Record #${recordId} changed while it was voted on.`);
          return { kind: 'agreed' as const, votes };
        }
        await this.releaseOwnClaim(tx, recordId, reviewer);
        return { kind: 'disagreed' as const, votes };
      }),
    );
    const fresh = await this.rows.findById(recordId);
    if (!fresh) throw new InvalidResolution(`Record #${recordId} no longer exists (was it pruned?).`);
    return { result, record: fresh };
  }

  /**
   * Runs `work` after the votes before it when `queue` is set: SQLite's DataSource is one connection, where two
   * transactions at once would interleave (one's BEGIN inside the other's), so there votes are cast one at a time in
   * this process. PostgreSQL's row lock orders them instead.
   */
  private serialized<T>(queue: boolean, work: () => Promise<T>): Promise<T> {
    if (!queue) return work();
    const run = this.sqliteVotes.then(work, work);
    this.sqliteVotes = run.catch(() => undefined);
    return run;
  }

  /** The votes cast on a record, in the order cast. */
  async of(recordId: number): Promise<ReviewVote[]> {
    return this.read(this.rows.repository().manager, recordId);
  }

  /**
   * The votes on a record as `viewer` may see them: the count always; the votes themselves once the viewer voted, the
   * required votes are all in, or the record is resolved (blind review: nobody is swayed by another's vote).
   */
  async view(record: AssessmentRecord, required: number, viewer: EntityReference | null): Promise<VotesView> {
    const votes = await this.of(record.id);
    const voted = viewer !== null && votes.some((vote) => sameReviewer(vote.reviewer, viewer));
    const complete = votes.length >= required;
    const needsAdjudication =
      complete && !record.isResolved() && record.isAwaitingReview() && new Set(votes.map((v) => v.outcome)).size > 1;
    const open = voted || complete || record.isResolved();
    return { required, cast: votes.length, needsAdjudication, voted, votes: open ? votes : null };
  }

  /** Every vote on records of `judgment` (all Judgments when omitted), for the agreement figures. */
  async all(judgment?: string): Promise<ReviewVoteRow[]> {
    const manager = this.rows.repository().manager;
    const postgres = manager.connection.options.type === 'postgres';
    const rows: Array<VoteRow & { record_id: number; judgment: string }> = await manager.query(
      `SELECT record_id, judgment, reviewer_type, reviewer_id, outcome, created_at FROM ${VOTES_TABLE}` +
        (judgment === undefined ? '' : postgres ? ' WHERE judgment = $1' : ' WHERE judgment = ?') +
        ' ORDER BY record_id, id',
      judgment === undefined ? [] : [judgment],
    );
    return rows.map((row) => ({
      recordId: Number(row.record_id),
      judgment: row.judgment,
      reviewer: `${row.reviewer_type} #${row.reviewer_id}`,
      outcome: row.outcome,
      createdAt: timeOf(row.created_at),
    }));
  }

  private async read(manager: EntityManager, recordId: number): Promise<ReviewVote[]> {
    const postgres = manager.connection.options.type === 'postgres';
    const rows: VoteRow[] = await manager.query(
      `SELECT reviewer_type, reviewer_id, outcome, created_at FROM ${VOTES_TABLE} WHERE record_id = ` +
        (postgres ? '$1' : '?') +
        ' ORDER BY id',
      [recordId],
    );
    return rows.map((row) => ({
      reviewer: { type: row.reviewer_type, id: row.reviewer_id },
      outcome: row.outcome,
      createdAt: timeOf(row.created_at),
    }));
  }

  private async releaseOwnClaim(tx: EntityManager, recordId: number, reviewer: EntityReference): Promise<void> {
    await tx
      .createQueryBuilder()
      .update(AssessmentRecord)
      .set({ claimHolderType: null, claimHolderId: null, claimExpiresAt: null, claimedAt: null })
      .where('id = :id', { id: recordId })
      .andWhere('claim_holder_type = :type AND claim_holder_id = :holder', { type: reviewer.type, holder: reviewer.id })
      .execute();
  }
}

function sameReviewer(a: { type: string; id: string }, b: { type: string; id: string }): boolean {
  return a.type === b.type && a.id === b.id;
}

/** A time as SQLite's datetime('now') writes it: `YYYY-MM-DD HH:MM:SS` in UTC (so text comparison orders it). */
function sqliteTime(date: Date): string {
  return date.toISOString().replace('T', ' ').slice(0, 19);
}

/** A timestamp as the driver returns it: a Date (PostgreSQL) or `YYYY-MM-DD HH:MM:SS` in UTC (SQLite). */
function timeOf(value: Date | string): Date {
  if (value instanceof Date) return value;
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
}

function isUniqueViolation(error: unknown): boolean {
  const { code, driverError } = error as { code?: string; driverError?: { code?: string } };
  const found = code ?? driverError?.code;
  return found === '23505' || found === 'SQLITE_CONSTRAINT_UNIQUE';
}

function alreadyVoted(recordId: number, reviewer: EntityReference, outcome: string | null): InvalidResolution {
  return new InvalidResolution(
    `${reviewer.type} #${reviewer.id} already voted on record #${recordId}` +
      `${outcome === null ? '' : ` (${JSON.stringify(outcome)})`}; a vote is final, and each reviewer votes once.`,
  );
}

export function awaitsAdjudication(recordId: number, required: number): InvalidResolution {
  return new InvalidResolution(
    `Record #${recordId} has its ${required} votes and they disagree, so it takes no more votes: it awaits ` +
      "adjudication by a reviewer the ResolutionPolicy's canAdjudicate allows.",
  );
}
