import { Injectable } from '@nestjs/common';
import { Between, type FindOptionsOrder, type FindOptionsWhere, IsNull, MoreThan, Not, Raw } from 'typeorm';
import { type JudgmentClass, judgmentName } from '../definition/judgment.decorator';
import { InvalidRecordQuery } from '../errors';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { entityReference, isEntity } from '../persistence/entity-reference';
import { RecordWriter } from '../persistence/record.writer';
import type { Reviewer } from '../persistence/reviewer';
import { ReviewAccess } from '../review/review-access';

/** How many records a list returns when no `limit` is given. */
export const DEFAULT_RECORD_LIMIT = 100;
/** The largest `limit` a list accepts: page through more with `after`. */
export const MAX_RECORD_LIMIT = 1000;

/** Filters of the record queries (lists are oldest first, by id). */
export interface RecordFilter {
  /** Only records of this Judgment (its class or registered name). */
  judgment?: JudgmentClass | string;
  /** Only records of this Subject (a saved TypeORM entity). */
  subject?: object;
  /** Only records nobody holds a live claim on (never claimed, released, or the lease ran out). */
  unclaimed?: boolean;
  /** Only records this reviewer holds a live claim on. */
  claimedBy?: Reviewer;
  /** At most this many records: 1 to MAX_RECORD_LIMIT (1000), DEFAULT_RECORD_LIMIT (100) when not given. */
  limit?: number;
  /** Keyset pagination: only records with an id greater than this one (the last id of the previous page). */
  after?: number;
  /** Skips this many records first. Slow on large tables (the database walks every skipped row): prefer `after`. */
  offset?: number;
}

/** Automatic Outcomes of one identity in a time window (`RecordQueries.automaticTraffic`). */
export interface AutomaticTraffic {
  readonly decision: string;
  readonly decisionVersion: string | null;
  readonly questions: string;
  readonly model: string;
  readonly count: number;
  /** When the first of them was decided. */
  readonly first: Date;
}

/** One automatic Outcome's identity and answers, and what its audit found (`RecordQueries.automaticAnswers`). */
export interface AutomaticAnswers {
  readonly decision: string;
  readonly decisionVersion: string | null;
  readonly questions: string;
  readonly model: string;
  readonly answers: Record<string, unknown> | null;
  /** Whether the auditor found it wrong; null when not audited. */
  readonly wrong: boolean | null;
}

/** Finds `judgment_assessments` records: by id, in Review, answered or not, of a Subject. */
@Injectable()
export class RecordQueries {
  constructor(
    private readonly rows: RecordWriter,
    private readonly access: ReviewAccess,
  ) {}

  /** Records in Review and not yet resolved (a partial index of those rows serves this list). */
  awaitingReview(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.query({ reviewRequestedAt: Not(IsNull()), resolvedAt: IsNull() }, filter, 'ASC', true);
  }

  /** Automatic Outcomes sampled for an audit and not yet audited (listed apart from Reviews). */
  awaitingAudit(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.query({ auditRequestedAt: Not(IsNull()), auditedAt: IsNull() }, filter);
  }

  /** Audited automatic Outcomes (their auditor's Outcome is `auditResolution`). */
  audited(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.query({ auditedAt: Not(IsNull()) }, filter);
  }

  /** Records with answers (not Unassessed attempts). */
  answered(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.query({ failureType: IsNull() }, filter);
  }

  /** Unassessed attempts (the Engine failed; a partial index of those rows serves this list). */
  unassessed(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.query({ failureType: Not(IsNull()) }, filter, 'ASC', true);
  }

  /** Every record of a Subject. */
  forSubject(subject: object, filter: Omit<RecordFilter, 'subject'> = {}): Promise<AssessmentRecord[]> {
    return this.query({}, { ...filter, subject });
  }

  /** The Subject's latest attempt at a Judgment (highest id; may be an Unassessed attempt), or null. */
  async latest(subject: object, judgment: JudgmentClass | string): Promise<AssessmentRecord | null> {
    const [record] = await this.query({}, { subject, judgment, limit: 1 }, 'DESC');
    return record ?? null;
  }

  /** How many records await Review, by Judgment name (Judgments with none are left out). */
  async backlog(): Promise<Record<string, number>> {
    const rows = await this.rows
      .repository()
      .createQueryBuilder('record')
      .select('record.judgment', 'judgment')
      .addSelect('COUNT(*)', 'count')
      .where('record.review_requested_at IS NOT NULL')
      .andWhere('record.resolved_at IS NULL')
      .groupBy('record.judgment')
      .getRawMany<{ judgment: string; count: string | number }>();
    return Object.fromEntries(rows.map((row) => [row.judgment, Number(row.count)]));
  }

  /**
   * Automatic Outcomes of a Judgment decided since `since`, counted per identity (Decision, version, Questions
   * fingerprint, model), with the first one's time: the traffic an audit rate applies to.
   */
  async automaticTraffic(judgment: string, since: Date): Promise<AutomaticTraffic[]> {
    const rows = await this.rows
      .repository()
      .createQueryBuilder('record')
      .select('record.decision', 'decision')
      .addSelect('record.decision_version', 'decisionVersion')
      .addSelect('record.questions_fingerprint', 'questions')
      .addSelect('record.model', 'model')
      .addSelect('COUNT(*)', 'count')
      .addSelect('MIN(record.created_at)', 'first')
      .where('record.judgment = :judgment', { judgment })
      .andWhere(AUTOMATIC_SINCE, { since })
      .groupBy('record.decision')
      .addGroupBy('record.decision_version')
      .addGroupBy('record.questions_fingerprint')
      .addGroupBy('record.model')
      .getRawMany<{
        decision: string;
        decisionVersion: string | null;
        questions: string;
        model: string;
        count: string | number;
        first: Date | string;
      }>();
    return rows.map((row) => ({
      decision: row.decision,
      decisionVersion: row.decisionVersion,
      questions: row.questions,
      model: row.model,
      count: Number(row.count),
      first: new Date(row.first),
    }));
  }

  /**
   * The answers of every automatic Outcome of a Judgment decided since `since`, with its identity and whether and
   * how it was audited (for the prediction-powered audit estimate), in pages of `MAX_RECORD_LIMIT` by id.
   */
  async automaticAnswers(judgment: string, since: Date): Promise<AutomaticAnswers[]> {
    const all: AutomaticAnswers[] = [];
    for (let after = 0; ;) {
      const page = await this.rows
        .repository()
        .createQueryBuilder('record')
        .select([
          'record.id',
          'record.decision',
          'record.decisionVersion',
          'record.questionsFingerprint',
          'record.model',
          'record.answers',
          'record.outcome',
          'record.auditResolution',
          'record.auditedAt',
        ])
        .where('record.judgment = :judgment', { judgment })
        .andWhere('record.id > :after', { after })
        .andWhere(AUTOMATIC_SINCE, { since })
        .orderBy('record.id', 'ASC')
        .take(MAX_RECORD_LIMIT)
        .getMany();
      all.push(
        ...page.map((record) => ({
          decision: record.decision as string,
          decisionVersion: record.decisionVersion,
          questions: record.questionsFingerprint,
          model: record.model as string,
          answers: record.answers,
          wrong: record.auditedAt === null ? null : record.auditResolution !== record.outcome,
        })),
      );
      if (page.length < MAX_RECORD_LIMIT) return all;
      after = page[page.length - 1].id;
    }
  }

  /** The record with this id, or null. */
  find(id: number): Promise<AssessmentRecord | null> {
    return this.rows.findById(id);
  }

  private async query(
    conditions: FindOptionsWhere<AssessmentRecord>,
    filter: RecordFilter,
    order: 'ASC' | 'DESC' = 'ASC',
    /** The list has a partial (judgment, id) index (awaiting Review, Unassessed): a Judgment filter reads it. */
    judgmentIndexed = false,
  ): Promise<AssessmentRecord[]> {
    const page = checkPage(filter);
    const where: FindOptionsWhere<AssessmentRecord> = { ...conditions };
    if (page.after !== undefined) where.id = MoreThan(page.after);
    const byJudgment = judgmentIndexed && filter.judgment !== undefined;
    if (filter.judgment !== undefined) {
      const name = typeof filter.judgment === 'string' ? filter.judgment : judgmentName(filter.judgment);
      // Read through the (judgment, id) index: as a range ordered by (judgment, id), which only that index yields in
      // order. With `judgment = name` PostgreSQL may walk the whole list by id instead, as it assumes a Judgment's
      // share of the table holds in the list too (a Judgment common in the table but rare in Review: 34-65 ms p50 in bench:review-desk).
      where.judgment = byJudgment ? Between(name, name) : name;
    }
    if (filter.subject !== undefined) {
      const dataSource = this.rows.dataSource();
      if (!isEntity(dataSource, filter.subject)) {
        throw new InvalidRecordQuery(
          'The subject filter must be an instance of a TypeORM entity the DataSource knows.',
        );
      }
      const subject = entityReference(dataSource, filter.subject);
      if (!subject) return []; // an unsaved entity has no records
      where.subjectType = subject.type;
      where.subjectId = subject.id;
    }
    Object.assign(where, this.claimConditions(filter));
    const sort: FindOptionsOrder<AssessmentRecord> = byJudgment ? { judgment: order, id: order } : { id: order };
    return this.rows.repository().find({ where, order: sort, take: page.limit, skip: page.offset });
  }

  /** The claim filters: unclaimed (no lease, or one that ran out), or held by one reviewer now. */
  private claimConditions(filter: RecordFilter): FindOptionsWhere<AssessmentRecord> {
    const now = new Date();
    if (filter.unclaimed && filter.claimedBy !== undefined) {
      throw new InvalidRecordQuery('The filters unclaimed and claimedBy exclude each other: pass one of them.');
    }
    if (filter.unclaimed) {
      // Claims set and clear holder and expiry together, so a null expiry is an unclaimed record.
      return { claimExpiresAt: Raw((column) => `(${column} IS NULL OR ${column} <= :now)`, { now }) };
    }
    if (filter.claimedBy === undefined) return {};
    const holder = this.access.reviewerReference(filter.claimedBy);
    return { claimHolderType: holder.type, claimHolderId: holder.id, claimExpiresAt: MoreThan(now) };
  }
}

/** The page a filter asks for, checked: InvalidRecordQuery names the field that is wrong and what it accepts. */
/** Records since `:since` decided automatically: an Outcome from a Decision and a model, never sent to Review, no failure. */
const AUTOMATIC_SINCE =
  'record.created_at >= :since AND record.outcome IS NOT NULL AND record.decision IS NOT NULL AND ' +
  'record.model IS NOT NULL AND record.review_requested_at IS NULL AND record.failure_type IS NULL';

function checkPage(filter: RecordFilter): { limit: number; after?: number; offset?: number } {
  const { limit = DEFAULT_RECORD_LIMIT, after, offset } = filter;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECORD_LIMIT) {
    throw new InvalidRecordQuery(
      `The limit must be a whole number from 1 to ${MAX_RECORD_LIMIT}, got ${String(limit)}; page through more ` +
        'records with after: <the last id of the previous page>.',
    );
  }
  if (after !== undefined && (!Number.isInteger(after) || after < 0)) {
    throw new InvalidRecordQuery(
      `The after cursor must be a record id (a whole number of at least 0), got ${String(after)}.`,
    );
  }
  if (offset !== undefined && (!Number.isInteger(offset) || offset < 0)) {
    throw new InvalidRecordQuery(`The offset must be a whole number of at least 0, got ${String(offset)}.`);
  }
  if (after !== undefined && offset !== undefined && offset > 0) {
    throw new InvalidRecordQuery(
      'Pass either after (keyset pagination, fast) or offset (slow on large tables), not both.',
    );
  }
  return { limit, after, offset: offset || undefined };
}
