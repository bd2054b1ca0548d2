import { Injectable } from '@nestjs/common';
import { Between, type FindOptionsOrder, type FindOptionsWhere, In, IsNull, MoreThan, Not, Raw } from 'typeorm';
import { REVIEW_CAUSES, type ReviewCause } from '../assessment/awaiting-review';
import { type JudgmentClass, judgmentName } from '../definition/judgment.decorator';
import { cascadeStepOf } from '../definition/cascade';
import { InvalidRecordQuery } from '../errors';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { entityReference, findByKey, isEntity } from '../persistence/entity-reference';
import { claimHolderKey } from '../persistence/record-indexes';
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

/** The orders of the Review list: oldest first (by id), nearest deadline first, least confident first. */
export const REVIEW_SORTS = ['age', 'deadline', 'confidence'] as const;
export type ReviewSort = (typeof REVIEW_SORTS)[number];

/** The filters and order of the Review list (awaitingReview). */
export interface ReviewListFilter extends RecordFilter {
  /**
   * `age` (default): oldest first, by id. `deadline`: the nearest deadline first, records without one last.
   * `confidence`: the least confident first (smallest decisionMargin), records without a margin last. Every order
   * pages with `after` = the last id of the previous page (`offset` only with `age`).
   */
  sort?: ReviewSort;
  /** Only records in Review for this cause: `band`, `drift`, `collapse`. */
  reason?: ReviewCause;
  /** Only records someone other than this reviewer holds a live claim on. */
  claimedByOthers?: Reviewer;
}

/** The column each keyed sort of the Review list reads (then id). */
const SORT_KEYS = { deadline: 'reviewDeadlineAt', confidence: 'decisionMargin' } as const;

/** Finds `judgment_assessments` records: by id, in Review, answered or not, of a Subject. */
/** A bound on the tiers followed when reading a cascade's path (no cascade is that long). */
const MAX_TIERS = 20;

@Injectable()
export class RecordQueries {
  constructor(
    private readonly rows: RecordWriter,
    private readonly access: ReviewAccess,
  ) {}

  /**
   * Records in Review and not yet resolved, in the filter's order. Partial indexes of those rows serve each order,
   * alone or after a Judgment or reason filter, so a page is one index range read at any depth (`after`).
   */
  async awaitingReview(filter: ReviewListFilter = {}): Promise<AssessmentRecord[]> {
    const { sort = 'age', reason } = filter;
    if (!REVIEW_SORTS.includes(sort)) {
      throw new InvalidRecordQuery(`The sort must be one of ${REVIEW_SORTS.join(', ')}; got ${String(sort)}.`);
    }
    if (reason !== undefined && !REVIEW_CAUSES.includes(reason)) {
      throw new InvalidRecordQuery(`The reason must be one of ${REVIEW_CAUSES.join(', ')}; got ${String(reason)}.`);
    }
    const page = checkPage(filter);
    const where: FindOptionsWhere<AssessmentRecord> = {
      reviewRequestedAt: Not(IsNull()),
      resolvedAt: IsNull(),
      ...this.claimConditions(filter),
    };
    // The leading column of the index read: the Judgment, else the reason, as a range ordered by it (see query()).
    let lead: 'judgment' | 'reviewCause' | null = null;
    if (filter.judgment !== undefined) {
      const name = typeof filter.judgment === 'string' ? filter.judgment : judgmentName(filter.judgment);
      where.judgment = Between(name, name);
      lead = 'judgment';
    }
    if (reason !== undefined) {
      where.reviewCause = lead === null ? Between(reason, reason) : reason;
      lead ??= 'reviewCause';
    }
    if (filter.subject !== undefined) {
      const subject = this.subjectConditions(filter.subject);
      if (subject === null) return [];
      Object.assign(where, subject);
    }
    const repository = this.rows.repository();
    const key = sort === 'age' ? null : SORT_KEYS[sort];
    const order = (keyed: boolean): FindOptionsOrder<AssessmentRecord> => ({
      ...(lead === null ? {} : { [lead]: 'ASC' }),
      ...(keyed && key !== null ? { [key]: 'ASC' } : {}),
      id: 'ASC',
    });
    if (key === null) {
      if (page.after !== undefined) where.id = MoreThan(page.after);
      return repository.find({ where, order: order(false), take: page.limit, skip: page.offset });
    }
    if (page.offset !== undefined) {
      throw new InvalidRecordQuery(
        `The offset pages only the age order; page the ${sort} order with after: <the last id of the previous page>.`,
      );
    }
    // Keyset over (key, id), records without a key last: those with one past the cursor, then those without. The
    // cursor record's key is read inside the statement (one round trip); one deleted since counts as without a key.
    const cursorKey = `(${repository
      .createQueryBuilder('cursor')
      .select(`cursor.${key}`)
      .where('cursor.id = :cursorId')
      .getQuery()})`;
    const keyed: FindOptionsWhere<AssessmentRecord> = { ...where, [key]: Not(IsNull()) };
    if (page.after !== undefined) {
      keyed.id = Raw((id) => `(${sibling(id, key)}, ${id}) > (${cursorKey}, :cursorId)`, { cursorId: page.after });
    }
    const found = await repository.find({ where: keyed, order: order(true), take: page.limit });
    if (found.length < page.limit) {
      const unkeyed: FindOptionsWhere<AssessmentRecord> = { ...where, [key]: IsNull() };
      if (page.after !== undefined) {
        // Past a cursor without a key: the records without one after it; past one with a key: all of them.
        unkeyed.id = Raw((id) => `${id} > CASE WHEN ${cursorKey} IS NULL THEN :cursorId ELSE 0 END`, {
          cursorId: page.after,
        });
      }
      found.push(...(await repository.find({ where: unkeyed, order: order(false), take: page.limit - found.length })));
    }
    return found;
  }

  /**
   * The Subjects of `records`, loaded in one query per entity (by the key each record stored); a record whose
   * Subject is gone, or of a type the DataSource does not know, maps to null.
   */
  async subjects(records: readonly AssessmentRecord[]): Promise<Map<number, object | null>> {
    const subjects = new Map<number, object | null>(records.map((record) => [record.id, null]));
    const dataSource = this.rows.dataSource();
    if (dataSource === null) return subjects;
    const byType = new Map<string, AssessmentRecord[]>();
    for (const record of records) {
      if (record.subjectType === null || record.subjectId === null) continue;
      byType.set(record.subjectType, [...(byType.get(record.subjectType) ?? []), record]);
    }
    for (const [type, ofType] of byType) {
      const metadata = dataSource.entityMetadatas.find((entity) => entity.name === type);
      if (!metadata) continue;
      if (metadata.primaryColumns.length !== 1) {
        for (const record of ofType) subjects.set(record.id, await findByKey(dataSource, metadata, record.subjectId!));
        continue;
      }
      const primary = metadata.primaryColumns[0];
      const keys = [...new Set(ofType.map((record) => record.subjectId!))];
      const loaded = await dataSource
        .getRepository(metadata.target)
        .findBy(primary.createValueMap(In(keys)) as FindOptionsWhere<object>);
      const byKey = new Map(loaded.map((entity) => [String(primary.getEntityValue(entity)), entity as object]));
      for (const record of ofType) subjects.set(record.id, byKey.get(record.subjectId!) ?? null);
    }
    return subjects;
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

  /**
   * The records of the escalation cascade a record belongs to, first tier first: the tiers it escalated from
   * (`provenance_details.cascade.escalatedFrom`), itself, and the tiers asked after it. Just the record without one.
   */
  async cascadePath(record: AssessmentRecord): Promise<AssessmentRecord[]> {
    if (cascadeStepOf(record) === null) return [record];
    const path = [record];
    for (let from = cascadeStepOf(record)?.escalatedFrom; from != null && path.length < MAX_TIERS;) {
      const earlier = await this.rows.findById(from);
      if (earlier === null) break;
      path.unshift(earlier);
      from = cascadeStepOf(earlier)?.escalatedFrom;
    }
    for (let last = record; path.length < MAX_TIERS;) {
      // The next tier's record shares the Judgment and the Evidence, and was written after: few rows to look through.
      const later = await this.rows.repository().find({
        where: { judgment: last.judgment, evidenceFingerprint: last.evidenceFingerprint, id: MoreThan(last.id) },
        order: { id: 'ASC' },
        take: 100,
      });
      const next = later.find((candidate) => cascadeStepOf(candidate)?.escalatedFrom === last.id);
      if (!next) break;
      path.push(next);
      last = next;
    }
    return path;
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
      const subject = this.subjectConditions(filter.subject);
      if (subject === null) return []; // an unsaved entity has no records
      Object.assign(where, subject);
    }
    Object.assign(where, this.claimConditions(filter));
    const sort: FindOptionsOrder<AssessmentRecord> = byJudgment ? { judgment: order, id: order } : { id: order };
    return this.rows.repository().find({ where, order: sort, take: page.limit, skip: page.offset });
  }

  /** The Subject filter's columns, or null for an unsaved entity (no records); InvalidRecordQuery for a non-entity. */
  private subjectConditions(value: object): FindOptionsWhere<AssessmentRecord> | null {
    const dataSource = this.rows.dataSource();
    if (!isEntity(dataSource, value)) {
      throw new InvalidRecordQuery('The subject filter must be an instance of a TypeORM entity the DataSource knows.');
    }
    const subject = entityReference(dataSource, value);
    return subject === null ? null : { subjectType: subject.type, subjectId: subject.id };
  }

  /** The claim filters: unclaimed (no lease, or one that ran out), or held by one reviewer now. */
  private claimConditions(filter: RecordFilter): FindOptionsWhere<AssessmentRecord> {
    const now = new Date();
    const claimFilters = [filter.unclaimed ? 'unclaimed' : null, filter.claimedBy ? 'claimedBy' : null];
    const others = (filter as ReviewListFilter).claimedByOthers;
    if (others !== undefined) claimFilters.push('claimedByOthers');
    const given = claimFilters.filter(Boolean);
    if (given.length > 1) {
      throw new InvalidRecordQuery(`The filters ${given.join(' and ')} exclude each other: pass one of them.`);
    }
    if (others !== undefined) {
      // Written so PostgreSQL cannot estimate them from the whole table's statistics: there most rows have no claim
      // (null), so it takes a live claim by someone else for a rarity among the awaiting records (where they are
      // common) and sorts every awaiting record instead of walking the order's index (200+ ms at 1,000,000 records).
      const holder = this.access.reviewerReference(others);
      return {
        claimExpiresAt: Raw((expires) => `COALESCE(${expires}, :claimEpoch) > :now`, { claimEpoch: new Date(0), now }),
        claimHolderType: Raw(
          (type) =>
            `(COALESCE(${type}, '') <> :otherType OR COALESCE(${sibling(type, 'claimHolderId')}, '') <> :otherId)`,
          { otherType: holder.type, otherId: holder.id },
        ),
      };
    }
    if (filter.unclaimed) {
      // Claims set and clear holder and expiry together, so a null expiry is an unclaimed record.
      return { claimExpiresAt: Raw((column) => `(${column} IS NULL OR ${column} <= :now)`, { now }) };
    }
    if (filter.claimedBy === undefined) return {};
    const holder = this.access.reviewerReference(filter.claimedBy);
    if (this.rows.dataSource()?.options.type !== 'postgres') {
      return { claimHolderType: holder.type, claimHolderId: holder.id, claimExpiresAt: MoreThan(now) };
    }
    // PostgreSQL: the holder as one key (the claim-key index, in id order) and the lease through COALESCE, neither of
    // which it has statistics for. From the columns' statistics it would take the holder's type, the holder and a live
    // lease for independent rarities in the whole table, expect next to no rows, and on a partitioned table append
    // every partition's matches and sort them (95 ms at 10,000,000 records) instead of merging each one's index.
    const key = { holderType: holder.type, holderId: holder.id };
    return {
      claimHolderType: Raw(
        (type) => `${claimHolderKey(type, sibling(type, 'claimHolderId'))} = ARRAY[:holderType, :holderId]`,
        key,
      ),
      claimExpiresAt: Raw((expires) => `COALESCE(${expires}, :claimEpoch) > :now`, { claimEpoch: new Date(0), now }),
    };
  }
}

/**
 * The property `property` of the same alias as `path`: TypeORM hands a Raw condition `Alias.propertyPath` and turns
 * each such path into the quoted column when it builds the SQL.
 */
function sibling(path: string, property: string): string {
  return path.replace(/\.[^.]+$/, `.${property}`);
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
