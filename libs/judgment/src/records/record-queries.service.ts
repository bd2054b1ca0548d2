import { Injectable } from '@nestjs/common';
import { type FindOptionsWhere, IsNull, MoreThan, Not, Raw } from 'typeorm';
import { type JudgmentClass, judgmentName } from '../definition/judgment.decorator';
import { InvalidRecordQuery } from '../errors';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { entityReference, isEntity } from '../persistence/entity-reference';
import { RecordWriter } from '../persistence/record.writer';
import type { Reviewer } from '../persistence/reviewer';
import { ReviewAccess } from '../review/review-access';

/** Filters of the record queries (lists are oldest first). */
export interface RecordFilter {
  /** Only records of this Judgment (its class or registered name). */
  judgment?: JudgmentClass | string;
  /** Only records of this Subject (a saved TypeORM entity). */
  subject?: object;
  /** Only records nobody holds a live claim on (never claimed, released, or the lease ran out). */
  unclaimed?: boolean;
  /** Only records this reviewer holds a live claim on. */
  claimedBy?: Reviewer;
  limit?: number;
  offset?: number;
}

/** Finds `judgment_assessments` records: by id, in Review, answered or not, of a Subject. */
@Injectable()
export class RecordQueries {
  constructor(
    private readonly rows: RecordWriter,
    private readonly access: ReviewAccess,
  ) {}

  /** Records in Review and not yet resolved. */
  awaitingReview(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.query({ reviewRequestedAt: Not(IsNull()), resolvedAt: IsNull() }, filter);
  }

  /** Records with answers (not Unassessed attempts). */
  answered(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.query({ failureType: IsNull() }, filter);
  }

  /** Unassessed attempts (the Engine failed). */
  unassessed(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.query({ failureType: Not(IsNull()) }, filter);
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

  /** The record with this id, or null. */
  find(id: number): Promise<AssessmentRecord | null> {
    return this.rows.repository().findOneBy({ id });
  }

  private async query(
    conditions: FindOptionsWhere<AssessmentRecord>,
    filter: RecordFilter,
    order: 'ASC' | 'DESC' = 'ASC',
  ): Promise<AssessmentRecord[]> {
    const where: FindOptionsWhere<AssessmentRecord> = { ...conditions };
    if (filter.judgment !== undefined) {
      where.judgment = typeof filter.judgment === 'string' ? filter.judgment : judgmentName(filter.judgment);
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
    return this.rows.repository().find({ where, order: { id: order }, take: filter.limit, skip: filter.offset });
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
