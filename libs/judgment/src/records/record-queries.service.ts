import { Injectable } from '@nestjs/common';
import { type FindOptionsWhere, IsNull, Not } from 'typeorm';
import { type JudgmentClass, judgmentName } from '../definition/judgment.decorator';
import { InvalidRecordQuery } from '../errors';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { entityReference, isEntity } from '../persistence/entity-reference';
import { RecordWriter } from '../persistence/record.writer';

/** Filters of the record queries (lists are oldest first). */
export interface RecordFilter {
  /** Only records of this Judgment (its class or registered name). */
  judgment?: JudgmentClass | string;
  /** Only records of this Subject (a saved TypeORM entity). */
  subject?: object;
  limit?: number;
  offset?: number;
}

/** Finds `judgment_assessments` records: by id, in Review, answered or not, of a Subject. */
@Injectable()
export class RecordQueries {
  constructor(private readonly rows: RecordWriter) {}

  /** Records in Review and not yet resolved. */
  awaitingReview(filter: RecordFilter = {}): Promise<AssessmentRecord[]> {
    return this.query({ reviewRequestedAt: Not(IsNull()), resolvedAt: IsNull() }, filter);
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
    return this.rows.repository().find({ where, order: { id: order }, take: filter.limit, skip: filter.offset });
  }
}
