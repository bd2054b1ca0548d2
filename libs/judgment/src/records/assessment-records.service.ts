import { Injectable } from '@nestjs/common';
import { type FindOptionsWhere, IsNull, LessThan, Not } from 'typeorm';
import { Assessment, type DecisionRecording, type EncodedAnswers } from '../assessment/assessment';
import { Provenance } from '../assessment/provenance';
import { COMPUTE_ONLY } from '../decision/apply-decision';
import { type Decision, decisionMetadata } from '../decision/decision.decorator';
import { type Judgment, type JudgmentClass, judgmentName } from '../definition/judgment.decorator';
import type { Outcome } from '../definition/outcome';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { InvalidRecordQuery, InvalidResolution, ResolutionForbidden, UnrebuildableAssessment } from '../errors';
import { ReviewResolved } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { questionsFingerprint } from '../questions/questions-fingerprint';
import { readQuestions } from '../questions/question';
import { ResolutionPolicyHost } from '../review/resolution-policy';
import { AssessmentRecord } from '../persistence/assessment-record.entity';
import { AssessmentRecorder } from '../persistence/assessment.recorder';
import { AttemptRecorder } from '../recording/attempt.recorder';
import { type EntityReference, entityReference, findByKey, isEntity } from '../persistence/entity-reference';
import type { Reviewer } from '../persistence/reviewer';

/** Filters of the record queries (lists are oldest first). */
export interface RecordFilter {
  /** Only records of this Judgment (its class or registered name). */
  judgment?: JudgmentClass | string;
  /** Only records of this Subject (a saved TypeORM entity). */
  subject?: object;
  limit?: number;
  offset?: number;
}

/** The engine and model fakes record: such records may lack answers (questions the script left out). */
const FAKE = 'fake';
const DAY_MS = 86_400_000;

/**
 * Works on `judgment_assessments` records: Replay (`rebuild`), recorded decisions from a record (`outcome`, `decide`),
 * Resolution of Reviews (`resolve`), query helpers and retention (`prune`).
 */
@Injectable()
export class AssessmentRecords {
  constructor(
    private readonly recorder: AssessmentRecorder,
    private readonly attempts: AttemptRecorder,
    private readonly registry: JudgmentRegistry,
    private readonly events: JudgmentEventsPublisher,
    private readonly policies: ResolutionPolicyHost,
  ) {}

  /**
   * Replay: the Assessment the record holds, over `judgment` or one constructed from the record's Subject. It is not
   * linked: deciding it computes the Outcome and records, logs and fires nothing.
   */
  rebuild<J extends Judgment = Judgment>(record: AssessmentRecord, judgment?: J): Promise<Assessment<J>> {
    return this.rebuildWith(record, judgment, COMPUTE_ONLY);
  }

  /** Rebuilds the record and applies its Judgment's default Decision, recording the Outcome on THIS record. */
  async outcome<O extends Outcome = Outcome>(record: AssessmentRecord, judgment?: Judgment): Promise<O> {
    return (await this.rebuildWith(record, judgment, this.attempts.linkTo(record))).outcome<O>();
  }

  /** Rebuilds the record and applies `decision`, recording the Outcome on THIS record (events, log, maybe Review). */
  async decide<J extends Judgment, O extends Outcome>(
    record: AssessmentRecord,
    decision: Decision<J, O>,
    judgment?: J,
  ): Promise<O> {
    return (await this.rebuildWith(record, judgment, this.attempts.linkTo(record))).decide(decision);
  }

  /** The Assessment the record holds, deciding through `recording`. */
  private async rebuildWith<J extends Judgment>(
    record: AssessmentRecord,
    judgment: J | undefined,
    recording: DecisionRecording,
  ): Promise<Assessment<J>> {
    if (record.isUnassessed()) {
      throw unrebuildable(record, `it is an Unassessed attempt (${record.failureType}) and holds no answers`);
    }
    const target = judgment ?? ((await this.judgmentFromSubject(record)) as J);
    const fake = record.engine === FAKE && record.model === FAKE;
    if (!fake && (record.answers === null || record.engine === null || record.model === null)) {
      throw unrebuildable(record, 'it holds no answers or no Provenance (engine, model)');
    }
    const name = judgmentName(target);
    const registered = this.registry.hasJudgment(record.judgment) ? this.registry.judgment(record.judgment) : null;
    if (name !== record.judgment || (registered !== null && target.constructor !== registered)) {
      throw unrebuildable(
        record,
        `it was made by ${record.judgment}${registered ? ` (class ${registered.name})` : ''}, not by ` +
          `${name} (class ${target.constructor.name}); pass a Judgment of exactly that class`,
      );
    }
    const questions = readQuestions(name, target.questions());
    if (questionsFingerprint(questions) !== record.questionsFingerprint) {
      throw unrebuildable(
        record,
        `the Questions of ${name} changed since it was assessed (their fingerprint differs); its answers belong ` +
          'to the old Questions — assess the Judgment again',
      );
    }
    const provenance = new Provenance(
      record.engine ?? FAKE,
      record.model ?? FAKE,
      record.requestId,
      record.provenanceDetails ?? {},
    );
    try {
      return Assessment.fromAnswers(target, questions, (record.answers ?? {}) as EncodedAnswers, provenance, recording);
    } catch (error) {
      throw unrebuildable(record, (error as Error).message, error);
    }
  }

  /**
   * Resolves a record in Review with a reviewer's Outcome. The app's ResolutionPolicy is asked first (none configured
   * refuses everyone: ResolutionForbidden); then InvalidResolution when the record is already resolved, is not
   * awaiting Review, or the resolution is not an Outcome of its Decision or itself requires Review. Check and write
   * are one conditional UPDATE, so of concurrent reviewers exactly one wins. Resolves to the refreshed record.
   */
  async resolve(record: AssessmentRecord, resolution: Outcome, reviewer: Reviewer): Promise<AssessmentRecord> {
    await this.authorize(record, reviewer);
    const resolver = this.reviewerReference(reviewer);
    const { outcomes, resolved } = this.checkResolution(record, resolution);
    const { written, record: fresh } = await this.recorder.recordResolution(record.id, {
      resolution: String(resolved),
      resolverType: resolver.type,
      resolverId: resolver.id,
    });
    if (!fresh) throw new InvalidResolution(`Record #${record.id} no longer exists (was it pruned?).`);
    Object.assign(record, fresh);
    if (!written) throw fresh.isResolved() ? alreadyResolved(fresh) : notAwaitingReview(fresh);
    const automatic = outcomes.find((outcome) => String(outcome) === fresh.outcome) ?? (fresh.outcome as Outcome);
    await this.events.emit(new ReviewResolved(record, automatic, resolved, reviewer));
    return record;
  }

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

  /** The record with this id, or null. */
  find(id: number): Promise<AssessmentRecord | null> {
    return this.recorder.repository().findOneBy({ id });
  }

  /**
   * Deletes records created more than `persistence.retentionDays` days ago (null keeps everything). Resolves to the
   * number of records deleted.
   */
  async prune(): Promise<number> {
    const days = this.recorder.persistence.retentionDays;
    if (days === null) return 0;
    const result = await this.recorder
      .repository()
      .delete({ createdAt: LessThan(new Date(Date.now() - days * DAY_MS)) });
    return result.affected ?? 0;
  }

  /** `new <registered Judgment class>(subject)`, the Subject loaded by the record's subject_type and subject_id. */
  private async judgmentFromSubject(record: AssessmentRecord): Promise<Judgment> {
    if (record.subjectType === null || record.subjectId === null) {
      throw unrebuildable(
        record,
        'it has no Subject to construct the Judgment with; pass the Judgment: rebuild(record, new YourJudgment(...))',
      );
    }
    if (!this.registry.hasJudgment(record.judgment)) {
      throw unrebuildable(
        record,
        `no Judgment is registered under the name "${record.judgment}"; add its class to ` +
          'JudgmentModule.forFeature([...]) or pass the Judgment',
      );
    }
    const dataSource = this.recorder.repository().manager.dataSource;
    const metadata = dataSource.entityMetadatas.find((entity) => entity.name === record.subjectType);
    if (!metadata) {
      throw unrebuildable(
        record,
        `its Subject type ${record.subjectType} is not an entity of the DataSource; register the entity or pass ` +
          'the Judgment',
      );
    }
    const subject = await findByKey(dataSource, metadata, record.subjectId);
    if (!subject) {
      throw unrebuildable(record, `its Subject ${record.subjectType} #${record.subjectId} no longer exists`);
    }
    const cls = this.registry.judgment(record.judgment) as new (subject: object) => Judgment;
    return new cls(subject);
  }

  private async authorize(record: AssessmentRecord, reviewer: Reviewer): Promise<void> {
    const policy = this.policies.policy;
    if (!policy) {
      throw new ResolutionForbidden(
        `Nobody may resolve record #${record.id}: no ResolutionPolicy is configured. Implement ResolutionPolicy ` +
          'and pass it as JudgmentModule.forRoot({ resolutionPolicy: YourPolicy }).',
      );
    }
    if ((await policy.canResolve(reviewer, record)) !== true) {
      throw new ResolutionForbidden(
        `The ResolutionPolicy refused ${describeReviewer(this.reference(reviewer))} resolving record #${record.id}.`,
      );
    }
  }

  /** The in-memory checks, in order; resolves the resolution to the value of the Decision's enum. */
  private checkResolution(record: AssessmentRecord, resolution: Outcome) {
    if (record.isResolved()) throw alreadyResolved(record);
    if (!record.isAwaitingReview() || record.decision === null) throw notAwaitingReview(record);
    if (!this.registry.hasDecision(record.decision)) {
      throw new InvalidResolution(
        `Record #${record.id} was decided by ${record.decision}, which is not registered, so its Outcomes are unknown: ` +
          `add ${record.decision} to JudgmentModule.forFeature([...]) to resolve it.`,
      );
    }
    const metadata = decisionMetadata(this.registry.decision(record.decision));
    const resolved = metadata.outcomes.find((outcome) => String(outcome) === String(resolution));
    if (resolved === undefined) {
      throw new InvalidResolution(
        `${JSON.stringify(resolution)} cannot resolve record #${record.id}: it is not an Outcome of ` +
          `${metadata.name} (${metadata.outcomes.map((outcome) => JSON.stringify(outcome)).join(', ')}).`,
      );
    }
    if (metadata.review.has(resolved)) {
      throw new InvalidResolution(
        `${JSON.stringify(resolved)} cannot resolve record #${record.id}: that Outcome itself requires Review. ` +
          'Resolve with an Outcome a person can settle on.',
      );
    }
    return { outcomes: metadata.outcomes, resolved };
  }

  private reviewerReference(reviewer: Reviewer): EntityReference {
    const reference = this.reference(reviewer);
    if (!reference) {
      throw new InvalidResolution(
        'A reviewer is { type, id } or a saved TypeORM entity (its entity name and primary key are recorded).',
      );
    }
    return reference;
  }

  private reference(reviewer: Reviewer): EntityReference | null {
    const entity = entityReference(this.recorder.dataSource(), reviewer);
    if (entity) return entity;
    const { type, id } = (reviewer ?? {}) as { type?: unknown; id?: unknown };
    if (typeof type === 'string' && type !== '' && (typeof id === 'string' || typeof id === 'number')) {
      return { type, id: String(id) };
    }
    return null;
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
      const dataSource = this.recorder.dataSource();
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
    return this.recorder.repository().find({ where, order: { id: order }, take: filter.limit, skip: filter.offset });
  }
}

function unrebuildable(record: AssessmentRecord, reason: string, cause?: unknown): UnrebuildableAssessment {
  return new UnrebuildableAssessment(
    `Record #${record.id} of ${record.judgment} cannot be rebuilt: ${reason}.`,
    cause === undefined ? undefined : { cause },
  );
}

function alreadyResolved(record: AssessmentRecord): InvalidResolution {
  return new InvalidResolution(
    `Record #${record.id} is already resolved (${JSON.stringify(record.resolution)} by ${record.resolverType} ` +
      `#${record.resolverId}); a Resolution is final.`,
  );
}

function notAwaitingReview(record: AssessmentRecord): InvalidResolution {
  return new InvalidResolution(
    `Record #${record.id} is not awaiting Review: only a record whose Outcome required Review can be resolved.`,
  );
}

function describeReviewer(reference: EntityReference | null): string {
  return reference ? `reviewer ${reference.type} #${reference.id}` : 'the reviewer';
}
