import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, Repository } from 'typeorm';
import type { Assessment } from '../assessment/assessment';
import type { Provenance } from '../assessment/provenance';
import type { PreparedEvidence } from '../definition/evidence';
import type { Judgment } from '../definition/judgment.decorator';
import { JUDGMENT_DATA_SOURCE, JUDGMENT_EXTRAS, RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import { InvalidConfiguration } from '../errors';
import type { JudgmentModuleExtras } from '../judgment.module-definition';
import type { ResolvedJudgmentOptions, ResolvedPersistence } from '../judgment.options';
import { AssessmentRecord } from './assessment-record.entity';
import { entityReference, isEntity } from './entity-reference';

/** The columns a decision writes: which Decision (version, thresholds) decided which Outcome. */
export interface DecisionColumns {
  readonly decision: string;
  readonly decisionVersion: string | null;
  readonly decisionThresholds: Record<string, number> | null;
  readonly outcomeType: string;
  readonly outcome: string;
}

/** What is known about one attempt before the Engine is asked: the columns every record of it shares. */
export interface AttemptContext {
  readonly name: string;
  readonly judgment: Judgment;
  readonly evidence: PreparedEvidence;
  readonly questionsFingerprint: string;
  readonly language: string | null;
}

/** Writes `judgment_assessments` rows. Knows nothing of Engines, events or logs. */
@Injectable()
export class RecordWriter {
  readonly persistence: ResolvedPersistence;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    @Inject(JUDGMENT_EXTRAS) private readonly extras: JudgmentModuleExtras,
    @Inject(JUDGMENT_DATA_SOURCE) private readonly source: DataSource | null,
  ) {
    this.persistence = options.persistence;
  }

  /** The app's DataSource (null when the app registered none for this module). */
  dataSource(): DataSource | null {
    return this.source;
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
        `The TypeORM DataSource${this.extras.dataSource ? ` "${this.extras.dataSource}"` : ''} does not know the ` +
          'AssessmentRecord entity: set autoLoadEntities: true, or add ...judgmentEntities to its entities (and ' +
          'judgmentMigrations to its migrations).',
      );
    }
    return dataSource.getRepository(AssessmentRecord);
  }

  /** Writes an answered attempt (a cache hit too, pointing at its original). */
  async recordAssessment(
    attempt: AttemptContext,
    assessment: Assessment<any>,
    cachedFromId: number | null = null,
  ): Promise<AssessmentRecord> {
    const provenance = assessment.provenance;
    return this.repository().save(
      this.build(attempt, {
        answers: assessment.encodedAnswers(),
        ...this.provenanceColumns(provenance, cachedFromId === null),
        cachedFromId,
      }),
    );
  }

  /** Writes a failed attempt: the failure, no answers; Provenance only when the Engine's response was rejected. */
  async recordFailure(attempt: AttemptContext, error: Error, provenance: Provenance | null): Promise<AssessmentRecord> {
    return this.repository().save(
      this.build(attempt, {
        answers: null,
        ...(provenance ? this.provenanceColumns(provenance, true) : {}),
        failureType: error.constructor.name,
        failureMessage: error.message,
      }),
    );
  }

  /**
   * Writes a decision in one conditional UPDATE (with, when asked, the Review it enters and why, or the audit it is
   * sampled for) guarded by `review_requested_at IS NULL`, so once a record is in
   * Review it keeps the Outcome that sent it there. Returns whether the row was written, and the row as it now is.
   */
  async recordDecision(
    id: number,
    columns: DecisionColumns,
    entering: { review: boolean; reviewReason?: string | null; audit?: boolean },
  ): Promise<{ written: boolean; record: AssessmentRecord | null }> {
    const repository = this.repository();
    const now = new Date();
    const result = await repository
      .createQueryBuilder()
      .update(AssessmentRecord)
      .set({
        ...columns,
        ...(entering.review ? { reviewRequestedAt: now, reviewReason: entering.reviewReason ?? null } : {}),
        ...(entering.audit ? { auditRequestedAt: now } : {}),
      })
      .where('id = :id', { id })
      .andWhere('review_requested_at IS NULL')
      .execute();
    return { written: result.affected === 1, record: await repository.findOneBy({ id }) };
  }

  /**
   * Writes a Resolution in one conditional UPDATE guarded by `review_requested_at IS NOT NULL AND resolved_at IS NULL`,
   * so of concurrent reviewers exactly one is recorded. Returns whether the row was written, and the row as it now is.
   */
  async recordResolution(
    id: number,
    columns: { resolution: string; resolverType: string; resolverId: string },
  ): Promise<{ written: boolean; record: AssessmentRecord | null }> {
    const repository = this.repository();
    const result = await repository
      .createQueryBuilder()
      .update(AssessmentRecord)
      .set({ ...columns, resolvedAt: new Date() })
      .where('id = :id', { id })
      .andWhere('review_requested_at IS NOT NULL')
      .andWhere('resolved_at IS NULL')
      .execute();
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
    const repository = this.repository();
    const result = await repository
      .createQueryBuilder()
      .update(AssessmentRecord)
      .set({ ...columns, auditedAt: new Date() })
      .where('id = :id', { id })
      .andWhere('audit_requested_at IS NOT NULL')
      .andWhere('audited_at IS NULL')
      .execute();
    return { written: result.affected === 1, record: await repository.findOneBy({ id }) };
  }

  /** The reference of the Subject: `subject()` when defined, else the single saved entity among own properties. */
  subjectOf(judgment: Judgment): { type: string; id: string } | null {
    const dataSource = this.dataSource();
    if (typeof judgment.subject === 'function') return entityReference(dataSource, judgment.subject());
    const entities = Object.values(judgment).filter((value) => isEntity(dataSource, value));
    return entities.length === 1 ? entityReference(dataSource, entities[0]) : null;
  }

  private provenanceColumns(provenance: Provenance, withDetails: boolean): Partial<AssessmentRecord> {
    return {
      engine: provenance.engine,
      model: provenance.model,
      requestId: provenance.requestId,
      provenanceDetails: withDetails ? { ...provenance.details } : {},
    };
  }

  private build(attempt: AttemptContext, columns: Partial<AssessmentRecord>): AssessmentRecord {
    const subject = this.subjectOf(attempt.judgment);
    return this.repository().create({
      judgment: attempt.name,
      subjectType: subject?.type ?? null,
      subjectId: subject?.id ?? null,
      evidence: this.persistence.evidence ? attempt.evidence.json : null,
      evidenceFingerprint: attempt.evidence.fingerprint,
      untrustedPaths: [...attempt.evidence.untrustedPaths],
      language: attempt.language,
      questionsFingerprint: attempt.questionsFingerprint,
      engine: null,
      model: null,
      requestId: null,
      provenanceDetails: null,
      failureType: null,
      failureMessage: null,
      cachedFromId: null,
      ...columns,
    });
  }
}
