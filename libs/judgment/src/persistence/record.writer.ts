import { Inject, Injectable } from '@nestjs/common';
import { type DataSource, IsNull, type Repository } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { Assessment } from '../assessment/assessment';
import type { DecisionTrace } from '../decision/decision-trace';
import type { RoundCost } from '../engines/pricing/round-cost';
import type { ReviewReason } from '../assessment/awaiting-review';
import type { Provenance } from '../assessment/provenance';
import type { PreparedEvidence } from '../definition/evidence';
import type { CascadeStep } from '../definition/cascade';
import type { UnresolvedEvidencePath } from '../definition/evidence-paths';
import type { Judgment } from '../definition/judgment.decorator';
import { JUDGMENT_DATA_SOURCE, RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import { InvalidConfiguration, InvalidJudgment } from '../errors';
import type { ResolvedJudgmentOptions, ResolvedPersistence } from '../judgment.options';
import { AssessmentRecord } from './assessment-record.entity';
import { AWAITING_REVIEW } from './record-indexes';
import { type MissingSchema, missingSchema } from './record-schema';
import { TEXT_COLUMN_LENGTH, unstorableText } from './storable-text';
import { type EntityReference, entityReference, isEntity } from './entity-reference';

/** The largest record id: the id column is a 32-bit integer, so no record has a greater one. */
const MAX_RECORD_ID = 2 ** 31 - 1;

/** The resolver recorded when a deadline resolves a Review: the system, for the reason `deadline`. */
export const DEADLINE_RESOLVER = { resolverType: 'system', resolverId: 'deadline' } as const;

const HELD_BY = 'claim_holder_type = :holderType AND claim_holder_id = :holderId';
const FREE_OR_HELD_BY = `(claim_holder_type IS NULL OR claim_expires_at <= :now OR (${HELD_BY}))`;
/** A live lease held by the holder: only that can be renewed (a lease that ran out is claimed again). */
const LIVE_AND_HELD_BY = `(${HELD_BY} AND claim_expires_at > :now)`;

/** The columns a decision writes: which Decision (version, thresholds) decided which Outcome. */
export interface DecisionColumns {
  readonly decision: string;
  readonly decisionVersion: string | null;
  readonly decisionThresholds: Record<string, number> | null;
  /** The Outcome enum's name the Decision declares, or null. */
  readonly outcomeType: string | null;
  readonly outcome: string;
  readonly decisionTrace: DecisionTrace | null;
  /** decisionMargin(decisionTrace): the least |value − threshold| compared; null when none was. */
  readonly decisionMargin: number | null;
}

/** What is known about one attempt before the Engine is asked: the columns every record of it shares. */
export interface AttemptContext {
  readonly name: string;
  readonly judgment: Judgment;
  readonly evidence: PreparedEvidence;
  readonly questionsFingerprint: string;
  readonly language: string | null;
  /** Backticked Evidence paths the questions name that the Evidence does not have (noted on the record). */
  readonly missingEvidencePaths?: readonly UnresolvedEvidencePath[];
  /** The Subject's reference, when read before asking (`checkedSubject`); else it is read when recording. */
  readonly subject?: EntityReference | null;
  /** What the rounds the record is the first to hold cost (`cost`, `cost_currency`, `cost_basis`); unset: null. */
  readonly cost?: RoundCost | null;
  /** Where the attempt stands in its Judgment's escalation cascade (noted on the record), or null without one. */
  readonly cascade?: CascadeStep | null;
  /** The queued assess job making the attempt (`job_id`), or null (inline). */
  readonly job?: string | null;
}

/** A prepared INSERT of a record: its SQL, the columns it writes (in parameter order) and those it returns. */
interface InsertStatement {
  readonly sql: string;
  readonly written: readonly ColumnMetadata[];
  readonly generated: readonly ColumnMetadata[];
}

/**
 * The INSERT built for each DataSource's record metadata. Kept outside the writer, whose instance an Assessment's
 * record link reaches: an app inspecting an event deeply would otherwise print the metadata graph once per column.
 */
const INSERT_STATEMENTS = new WeakMap<EntityMetadata, InsertStatement>();

/** Writes `judgment_assessments` rows. Knows nothing of Engines, events or logs. */
@Injectable()
export class RecordWriter {
  readonly persistence: ResolvedPersistence;
  private readonly dataSourceName: string | false | undefined;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    @Inject(JUDGMENT_DATA_SOURCE) private readonly source: DataSource | null,
  ) {
    this.persistence = options.persistence;
    this.dataSourceName = options.dataSource;
  }

  /** The app's DataSource (null when the app registered none for this module). */
  dataSource(): DataSource | null {
    return this.source;
  }

  /** OpenTelemetry database attributes of a write to the records' table (`db.system.name`, operation, table). */
  spanAttributes(operation: 'INSERT' | 'UPDATE'): Record<string, string> {
    const type = String(this.source?.options.type ?? 'unknown');
    const system = type === 'postgres' ? 'postgresql' : type === 'better-sqlite3' ? 'sqlite' : type;
    return { 'db.system.name': system, 'db.operation.name': operation, 'db.collection.name': 'judgment_assessments' };
  }

  /** The records' repository; InvalidConfiguration when the app's DataSource cannot hold them. */
  repository(): Repository<AssessmentRecord> {
    const dataSource = this.dataSource();
    if (!dataSource) {
      throw new InvalidConfiguration(
        'Persistence is enabled but no TypeORM DataSource is available: import TypeOrmModule.forRoot() in the app ' +
          '(with autoLoadEntities or judgmentEntities), or disable persistence.',
      );
    }
    if (!dataSource.hasMetadata(AssessmentRecord)) {
      throw new InvalidConfiguration(
        `The TypeORM DataSource${this.dataSourceName ? ` "${this.dataSourceName}"` : ''} does not know the ` +
          'AssessmentRecord entity: set autoLoadEntities: true, or add ...judgmentEntities to its entities (and ' +
          'judgmentMigrations to its migrations).',
      );
    }
    return dataSource.getRepository(AssessmentRecord);
  }

  /**
   * What the database lacks of the records' tables and columns (empty when the migrations have run): one catalog
   * query, for startup and `judgment check`.
   */
  async missingSchema(): Promise<MissingSchema[]> {
    const repository = this.repository();
    return missingSchema(repository.manager.connection, [AssessmentRecord]);
  }

  /** Writes an answered attempt (a cache hit too, pointing at its original). */
  async recordAssessment(
    attempt: AttemptContext,
    assessment: Assessment<any>,
    cachedFromId: number | null = null,
  ): Promise<AssessmentRecord> {
    return this.insert(
      this.build(attempt, {
        answers: assessment.encodedAnswers(),
        ...this.provenanceColumns(assessment.provenance, cachedFromId === null),
        cachedFromId,
      }),
    );
  }

  /**
   * Writes a failed attempt: the failure, with the answers the Engine gave before the round failed (null when none);
   * Provenance when the Engine's response was rejected, or of those answers.
   */
  async recordFailure(
    attempt: AttemptContext,
    error: Error,
    provenance: Provenance | null,
    answers: Record<string, unknown> | null = null,
  ): Promise<AssessmentRecord> {
    return this.insert(
      this.build(attempt, {
        answers,
        ...(provenance ? this.provenanceColumns(provenance, true) : {}),
        failureType: error.constructor.name,
        failureMessage: error.message,
      }),
    );
  }

  /**
   * Writes a decision in one conditional UPDATE (with, when asked, the Review it enters and why, or the audit it is
   * sampled for) guarded by `review_requested_at IS NULL` (and `audit_requested_at IS NULL` for an audit), so once a
   * record is in Review it keeps the Outcome that sent it there, and an audit is requested once. Returns whether the
   * row was written, and the row as it now is.
   */
  async recordDecision(
    id: number,
    columns: DecisionColumns,
    entering: {
      /** Why the record enters Review, or null when it does not. */
      review: ReviewReason | null;
      audit?: boolean;
      /** Milliseconds the record may wait in Review before its deadline (null or absent: no deadline). */
      reviewDeadline?: number | null;
    },
  ): Promise<{ written: boolean; record: AssessmentRecord | null }> {
    const now = new Date();
    const deadline = entering.reviewDeadline ?? null;
    const review = entering.review
      ? {
          reviewRequestedAt: now,
          reviewReason: entering.review.text,
          reviewCause: entering.review.cause,
          ...(deadline === null ? {} : { reviewDeadlineAt: new Date(now.getTime() + deadline) }),
        }
      : {};
    const audit = entering.audit ? { auditRequestedAt: now } : {};
    // Once per record: a decision run again (a retried decide job starts from its job data, not the row) neither
    // enters Review nor requests an audit a second time.
    const guards = ['review_requested_at IS NULL', ...(entering.audit ? ['audit_requested_at IS NULL'] : [])];
    return this.updateIf(id, { ...columns, ...review, ...audit }, guards);
  }

  /**
   * Writes a Resolution in one conditional UPDATE guarded by `review_requested_at IS NOT NULL AND resolved_at IS NULL`,
   * so of concurrent reviewers exactly one is recorded. Returns whether the row was written, and the row as it now is.
   */
  async recordResolution(
    id: number,
    columns: { resolution: string; resolverType: string; resolverId: string },
    /** Unless null (an override), the write also requires that no one else holds a live claim on the record. */
    claimant: EntityReference | null,
  ): Promise<{ written: boolean; record: AssessmentRecord | null }> {
    const now = new Date();
    const guards = [AWAITING_REVIEW];
    if (claimant) guards.push(FREE_OR_HELD_BY);
    const parameters = claimant ? { now, holderType: claimant.type, holderId: claimant.id } : {};
    return this.updateIf(id, { ...columns, resolvedAt: now }, guards, parameters);
  }

  /**
   * Takes or extends a claim in one conditional UPDATE: the record must await Review and be unclaimed, its lease run
   * out, or held by `holder` already (`renew` only the last). Of concurrent claimants exactly one is written.
   */
  async recordClaim(
    id: number,
    holder: EntityReference,
    expiresAt: Date,
    mode: 'claim' | 'renew',
  ): Promise<{ written: boolean; record: AssessmentRecord | null }> {
    return this.updateIf(
      id,
      {
        claimHolderType: holder.type,
        claimHolderId: holder.id,
        claimExpiresAt: expiresAt,
        // A new claim starts now; the holder's own live claim, extended, keeps its start.
        claimedAt: () => `CASE WHEN ${LIVE_AND_HELD_BY} AND claimed_at IS NOT NULL THEN claimed_at ELSE :now END`,
      },
      [AWAITING_REVIEW, mode === 'claim' ? FREE_OR_HELD_BY : LIVE_AND_HELD_BY],
      { now: new Date(), holderType: holder.type, holderId: holder.id },
    );
  }

  /** Clears `holder`'s claim in one conditional UPDATE (only the holder's own claim is cleared). */
  async releaseClaim(
    id: number,
    holder: EntityReference,
  ): Promise<{ written: boolean; record: AssessmentRecord | null }> {
    return this.updateIf(
      id,
      { claimHolderType: null, claimHolderId: null, claimExpiresAt: null, claimedAt: null },
      [AWAITING_REVIEW, HELD_BY],
      { holderType: holder.type, holderId: holder.id },
    );
  }

  /**
   * Resolves an expired Review as the system in one conditional UPDATE: only while the record still awaits Review and
   * its deadline has passed at `now`, so a person resolving at the same moment and the expiry cannot both be written.
   */
  async recordExpiry(
    id: number,
    resolution: string,
    now: Date = new Date(),
  ): Promise<{ written: boolean; record: AssessmentRecord | null }> {
    return this.updateIf(
      id,
      { resolution, ...DEADLINE_RESOLVER, resolvedAt: now },
      [AWAITING_REVIEW, 'review_deadline_at <= :now'],
      { now },
    );
  }

  /** Ids of records still in Review whose deadline passed at `now`, earliest deadline first (the sweep's batch). */
  async dueForExpiry(now: Date, limit: number): Promise<number[]> {
    const rows = await this.repository()
      .createQueryBuilder('record')
      .select('record.id', 'id')
      .where('record.review_deadline_at <= :now', { now })
      .andWhere('record.resolved_at IS NULL')
      .orderBy('record.review_deadline_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: number }>();
    return rows.map((row) => Number(row.id));
  }

  /**
   * One INSERT, outside a transaction and without `save()`'s change tracking. On PostgreSQL the statement is built once
   * from the entity's columns (TypeORM's query builder cost more CPU per write than the round trip itself) and the
   * generated columns (id, created_at, updated_at) come back through RETURNING; elsewhere the query builder writes it
   * and TypeORM reads them.
   */
  private async insert(record: AssessmentRecord): Promise<AssessmentRecord> {
    const repository = this.repository();
    const { driver } = repository.manager.connection;
    if (driver.options.type !== 'postgres') {
      await repository
        .createQueryBuilder()
        .insert()
        .into(AssessmentRecord)
        .values(record as QueryDeepPartialEntity<AssessmentRecord>)
        .execute();
      return record;
    }
    const { sql, written, generated } = this.insertStatement(repository);
    const values = written.map(
      (column) => driver.preparePersistentValue(column.getEntityValue(record), column) ?? null,
    );
    const [row] = (await repository.manager.query(sql, values)) as Record<string, unknown>[];
    for (const column of generated) {
      column.setEntityValue(record, driver.prepareHydratedValue(row[column.databaseName], column));
    }
    return record;
  }

  /** The PostgreSQL INSERT of a record: every column but the generated ones, which it returns. */
  private insertStatement(repository: Repository<AssessmentRecord>): InsertStatement {
    const { metadata, manager } = repository;
    const built = INSERT_STATEMENTS.get(metadata);
    if (built) return built;
    const { driver } = manager.connection;
    const isGenerated = (column: ColumnMetadata) => column.isGenerated || column.isCreateDate || column.isUpdateDate;
    const written = metadata.columns.filter((column) => !isGenerated(column) && column.isInsert && !column.isVirtual);
    const generated = metadata.columns.filter(isGenerated);
    const names = (columns: ColumnMetadata[]) => columns.map((column) => driver.escape(column.databaseName)).join(', ');
    const table = metadata.tablePath
      .split('.')
      .map((part) => driver.escape(part))
      .join('.');
    const sql =
      `INSERT INTO ${table} (${names(written)}) VALUES (${written.map((_, index) => `$${index + 1}`).join(', ')}) ` +
      `RETURNING ${names(generated)}`;
    const statement = { sql, written, generated };
    INSERT_STATEMENTS.set(metadata, statement);
    return statement;
  }

  /**
   * The record with this id, or null: an id no record can have (not a whole number from 1 to MAX_RECORD_ID) is not
   * asked for, as the database would refuse it as out of its integer's range.
   */
  async findById(id: number): Promise<AssessmentRecord | null> {
    if (!Number.isInteger(id) || id < 1 || id > MAX_RECORD_ID) return null;
    return this.repository().findOneBy({ id });
  }

  /** The newest answered record (not a failure) queued job `job` wrote, or null. */
  async answeredBy(job: string): Promise<AssessmentRecord | null> {
    return this.repository().findOne({ where: { jobId: job, failureType: IsNull() }, order: { id: 'DESC' } });
  }

  /**
   * One conditional UPDATE; where the driver has RETURNING (PostgreSQL) the written row comes back with it, so only a
   * refused update (or SQLite) reads the row again.
   */
  private async updateIf(
    id: number,
    columns: QueryDeepPartialEntity<AssessmentRecord>,
    guards: string[],
    parameters: Record<string, unknown> = {},
  ): Promise<{ written: boolean; record: AssessmentRecord | null }> {
    const repository = this.repository();
    const update = repository.createQueryBuilder().update(AssessmentRecord).set(columns).where('id = :id', { id });
    for (const guard of guards) update.andWhere(guard);
    update.setParameters(parameters);
    const returning = repository.manager.connection.driver.isReturningSqlSupported('update');
    if (returning) update.returning('*').updateEntity(false);
    const result = await update.execute();
    const [row] = returning && Array.isArray(result.raw) ? (result.raw as Record<string, unknown>[]) : [];
    if (row) return { written: true, record: this.hydrate(row) };
    return { written: result.affected === 1, record: await repository.findOneBy({ id }) };
  }

  /**
   * Writes an audit's Outcome in one conditional UPDATE guarded by `audit_requested_at IS NOT NULL AND audited_at IS
   * NULL`, so of concurrent auditors exactly one is recorded. Returns whether the row was written, and the row now.
   */
  async recordAudit(
    id: number,
    columns: { auditResolution: string; auditResolverType: string; auditResolverId: string },
  ): Promise<{ written: boolean; record: AssessmentRecord | null }> {
    return this.updateIf(id, { ...columns, auditedAt: new Date() }, [
      'audit_requested_at IS NOT NULL',
      'audited_at IS NULL',
    ]);
  }

  /** An entity from a row of `RETURNING *`, each column read as TypeORM reads it in a find. */
  private hydrate(row: Record<string, unknown>): AssessmentRecord {
    const { driver } = this.repository().manager.connection;
    const record = new AssessmentRecord();
    for (const column of this.repository().metadata.columns) {
      column.setEntityValue(record, driver.prepareHydratedValue(row[column.databaseName], column));
    }
    return record;
  }

  /**
   * The Subject's reference of an attempt about to be asked, and, when recording is required, the columns the app
   * fills (the Judgment's name, the Subject, the language) checked against what the record holds: InvalidJudgment
   * names what does not fit, before anything is asked or paid for.
   */
  checkedSubject(attempt: Omit<AttemptContext, 'subject'>): EntityReference | null {
    if (!this.persistence.enabled) return null;
    const subject = this.subjectOf(attempt.judgment);
    if (!this.persistence.required) return subject;
    const columns: Array<[string, string, string | null, string]> = [
      ['judgment', 'its name', attempt.name, 'give it a shorter name with @Judgment({ name })'],
      ['subjectType', 'its Subject type', subject?.type ?? null, 'give the entity a shorter name'],
      [
        'subjectId',
        'its Subject id',
        subject?.id ?? null,
        'record it against an entity with a shorter key (subject()), or without a Subject (subject() returning null)',
      ],
      ['language', 'its language()', attempt.language, "return a language code such as 'en' from language()"],
    ];
    const metadata = this.repository().metadata;
    for (const [property, what, value, fix] of columns) {
      if (value === null) continue;
      const column = metadata.findColumnWithPropertyName(property);
      const length = Number(column?.length) || TEXT_COLUMN_LENGTH;
      const problem = unstorableText(value, length);
      if (problem === null) continue;
      throw new InvalidJudgment(
        `${attempt.name}: ${what} ${problem}; the record's ${column?.databaseName ?? property} holds ${length} ` +
          `characters of text, so the attempt could not be recorded, and nothing was asked: ${fix}.`,
      );
    }
    return subject;
  }

  /** The reference of the Subject: `subject()` when defined, else the single saved entity among own properties. */
  subjectOf(judgment: Judgment): { type: string; id: string } | null {
    const dataSource = this.dataSource();
    if (typeof judgment.subject === 'function') return entityReference(dataSource, judgment.subject());
    const entities = Object.values(judgment).filter((value) => isEntity(dataSource, value));
    return entities.length === 1 ? entityReference(dataSource, entities[0]) : null;
  }

  /** The Provenance columns; the model of each Question, when the Engine reported one, in `questionModels`. */
  private provenanceColumns(provenance: Provenance, withDetails: boolean): Partial<AssessmentRecord> {
    const { questionModels } = provenance;
    const models = Object.keys(questionModels).length === 0 ? {} : { questionModels: { ...questionModels } };
    return {
      engine: provenance.engine,
      model: provenance.model,
      requestId: provenance.requestId,
      provenanceDetails: withDetails ? { ...provenance.details, ...models } : models,
    };
  }

  /**
   * Notes the missing Evidence paths in `provenance_details.missingEvidencePaths`, and the attempt's place in a
   * cascade in `provenance_details.cascade` (no columns of their own).
   */
  private missingPathsColumn(
    attempt: AttemptContext,
    details: Record<string, unknown> | null,
  ): Partial<AssessmentRecord> {
    const paths = [...new Set((attempt.missingEvidencePaths ?? []).map((missing) => missing.path))];
    const cascade = attempt.cascade ? { cascade: { ...attempt.cascade } } : {};
    if (paths.length === 0 && !attempt.cascade) return {};
    return {
      provenanceDetails: { ...details, ...(paths.length === 0 ? {} : { missingEvidencePaths: paths }), ...cascade },
    };
  }

  /**
   * The record an answered attempt wrote, rebuilt from the columns it was written with (its id among them) without
   * reading it back: what the decide job carries, so deciding costs one UPDATE. Every other nullable column is null,
   * as on a fresh row; the UPDATE's RETURNING then brings the row as it is.
   */
  restore(columns: Partial<AssessmentRecord> & { readonly id: number }): AssessmentRecord {
    return Object.assign(this.blank(), columns);
  }

  /** A record whose nullable columns are all null, as a row read back would hold them. */
  private blank(): AssessmentRecord {
    const blank = new AssessmentRecord();
    for (const column of this.repository().metadata.columns) {
      if (column.isNullable) column.setEntityValue(blank, null);
    }
    return blank;
  }

  private build(attempt: AttemptContext, columns: Partial<AssessmentRecord>): AssessmentRecord {
    const subject = attempt.subject !== undefined ? attempt.subject : this.subjectOf(attempt.judgment);
    // The INSERT returns only generated columns, so the rest start as a row read back would hold them.
    return Object.assign(this.blank(), {
      judgment: attempt.name,
      subjectType: subject?.type ?? null,
      subjectId: subject?.id ?? null,
      evidence: this.persistence.evidence ? attempt.evidence.json : null,
      evidenceFingerprint: attempt.evidence.fingerprint,
      untrustedPaths: [...attempt.evidence.untrustedPaths],
      language: attempt.language,
      questionsFingerprint: attempt.questionsFingerprint,
      jobId: attempt.job ?? null,
      ...(attempt.cost
        ? { cost: attempt.cost.amount, costCurrency: attempt.cost.currency, costBasis: attempt.cost.basis }
        : {}),
      ...columns,
      ...this.missingPathsColumn(attempt, columns.provenanceDetails ?? null),
    });
  }
}
