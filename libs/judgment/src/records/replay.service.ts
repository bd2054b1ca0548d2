import { Injectable } from '@nestjs/common';
import { Assessment, type DecisionRecording, type EncodedAnswers } from '../assessment/assessment';
import { COMPUTE_ONLY } from '../decision/apply-decision';
import type { Decided } from '../assessment/awaiting-review';
import { recordProvenance } from '../persistence/record-provenance';
import type { Decision } from '../decision/decision.decorator';
import type { Outcome } from '../definition/outcome';
import { type Judgment, judgmentName } from '../definition/judgment.decorator';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { UnrebuildableAssessment } from '../errors';
import { questionsFingerprint } from '../questions/questions-fingerprint';
import { readQuestions } from '../questions/question';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { findByKey } from '../persistence/entity-reference';
import { RecordWriter } from '../persistence/record.writer';
import { Recorder } from '../recording/recorder';
import type { LinkCascade } from '../recording/record-link';

/**
 * Replay: rebuilds the Assessment a record holds, either to look at it (nothing recorded) or to decide it, the Outcome
 * then being recorded on that same record.
 */
@Injectable()
export class Replay {
  constructor(
    private readonly rows: RecordWriter,
    private readonly recorder: Recorder,
    private readonly registry: JudgmentRegistry,
  ) {}

  /**
   * The Assessment the record holds, over `judgment` or one constructed from the record's Subject. It is not
   * linked: deciding it computes the Outcome and records, logs and fires nothing.
   */
  rebuild<J extends Judgment = Judgment>(record: AssessmentRecord, judgment?: J): Promise<Assessment<J>> {
    return this.rebuildWith(record, judgment, COMPUTE_ONLY);
  }

  /** Rebuilds the record and applies its Judgment's default Decision, recording the Outcome on THIS record. */
  async outcome<O extends Outcome = Outcome>(
    record: AssessmentRecord,
    judgment?: Judgment,
    /** How a record of a cascade tier asks the next tier when its Outcome is in the Review band (a job's way). */
    escalate: LinkCascade['escalate'] = null,
  ): Promise<Decided<O>> {
    return (await this.rebuildWith(record, judgment, this.recorder.linkTo(record, escalate))).outcome<O>();
  }

  /** Rebuilds the record and applies `decision`, recording the Outcome on THIS record (events, log, maybe Review). */
  async decide<J extends Judgment, O extends Outcome>(
    record: AssessmentRecord,
    decision: Decision<J, O>,
    judgment?: J,
  ): Promise<Decided<O>> {
    return (await this.rebuildWith(record, judgment, this.recorder.linkTo(record))).decide(decision);
  }

  /** The Assessment the record holds, deciding through `recording`. */
  private async rebuildWith<J extends Judgment>(
    record: AssessmentRecord,
    judgment: J | undefined,
    recording: DecisionRecording,
  ): Promise<Assessment<J>> {
    if (record.isUnassessed()) {
      throw unrebuildable(
        record,
        `it is an Unassessed attempt (${record.failureType}): its round failed, so it holds no Assessment`,
      );
    }
    const target = judgment ?? ((await this.judgmentFromSubject(record)) as J);
    const { answers } = record;
    const provenance = recordProvenance(record);
    if (answers === null || provenance === null) {
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
    try {
      // Questions the record holds no answer to (a scripted round may leave some) stay unanswered.
      return Assessment.fromAnswers(target, questions, answers as EncodedAnswers, provenance, recording);
    } catch (error) {
      throw unrebuildable(record, (error as Error).message, error);
    }
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
    const dataSource = this.rows.repository().manager.dataSource;
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
}

function unrebuildable(record: AssessmentRecord, reason: string, cause?: unknown): UnrebuildableAssessment {
  return new UnrebuildableAssessment(
    `Record #${record.id} of ${record.judgment} cannot be rebuilt: ${reason}.`,
    cause === undefined ? undefined : { cause },
  );
}
