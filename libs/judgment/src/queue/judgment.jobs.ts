import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { type Decided, type ReviewReason, decidedOutcome, reviewReasonOf } from '../assessment/awaiting-review';
import { Unassessed } from '../assessment/unassessed';
import type { Outcome } from '../definition/outcome';
import { type Judgment, judgmentMetadata, judgmentName } from '../definition/judgment.decorator';
import { JudgmentRegistry } from '../registry/judgment.registry';
import type { AttemptOptions, Attempter } from '../judge/judge.types';
import { RecordQueries } from '../records/record-queries.service';
import { Replay } from '../records/replay.service';
import { RecordWriter } from '../persistence/record.writer';
import type { LinkCascade } from '../recording/record-link';
import { UnrebuildableAssessment } from '../errors';
import { type JudgmentPayload, decodeJudgment, encodeJudgment } from './judgment.payload';
import { type AnsweredColumns, answeredColumns } from './queue.jobs-data';

/** How an assess job ended; it is also the job's return value. */
export type AssessStep =
  /** The Engine failed (throwOnFailure false): never decided. */
  | { readonly kind: 'unassessed'; readonly record: number | null }
  /** Assessed; the Judgment has no default Decision, so nothing is decided. */
  | { readonly kind: 'assessed'; readonly record: number | null }
  /** Assessed but not recorded (persistence off, or a best-effort write failed): decided inside the assess job. */
  | { readonly kind: 'decided'; readonly record: null; readonly outcome: Outcome; readonly review: ReviewReason | null }
  /** Assessed and recorded: the decide job decides from the record. */
  | { readonly kind: 'recorded'; readonly record: number };

/** How an assess job ended, and what the decide job of a recorded Assessment carries of its record. */
export interface AssessRun {
  readonly step: AssessStep;
  readonly answered?: AnsweredColumns;
}

/**
 * The work of the two jobs, shared by the inline dispatcher and the BullMQ processors: (de)serialise a Judgment,
 * assess it through the Judge, decide a recorded Assessment from its record. It takes the Judge from its caller: the
 * Judge hands itself to the dispatch strategy, and the queue's processor injects it.
 */
@Injectable()
export class JudgmentJobs {
  constructor(
    private readonly registry: JudgmentRegistry,
    private readonly rows: RecordWriter,
    private readonly records: RecordQueries,
    private readonly replay: Replay,
  ) {}

  /** The job payload of a Judgment; throws UnqueueableJudgment naming what cannot be queued. */
  payload(judgment: Judgment): JudgmentPayload {
    return encodeJudgment(judgment, this.registry, this.dataSource());
  }

  /** The Judgment of a payload, rebuilt without its constructor; throws SubjectNotFound for a deleted entity. */
  judgment(payload: JudgmentPayload): Promise<Judgment> {
    return decodeJudgment(payload, this.registry, this.dataSource());
  }

  /**
   * Assesses through `judge`. An Engine failure throws (throwOnFailure true, after the attempt was recorded)
   * or ends `unassessed`. A recorded Assessment is left for the decide job; an unrecorded one is decided here.
   * With `options.paid` (answers an earlier run paid for but could not record) the Engine is not asked again;
   * `options.limits` is how the round treats the rate limits.
   */
  async assess(judge: Attempter, judgment: Judgment, options: AttemptOptions = {}): Promise<AssessRun> {
    const { result, record } = await judge.attempt(judgment, options);
    if (result instanceof Unassessed) return { step: { kind: 'unassessed', record: record?.id ?? null } };
    if (!judgmentMetadata(judgment.constructor).decision) {
      return { step: { kind: 'assessed', record: record?.id ?? null } };
    }
    if (record) return { step: { kind: 'recorded', record: record.id }, answered: answeredColumns(record) };
    const decided = await result.outcome();
    return {
      step: { kind: 'decided', record: null, outcome: decidedOutcome(decided), review: reviewReasonOf(decided) },
    };
  }

  /**
   * Decides record `id` from the record with the Judgment's default Decision (never asking the Engine): records the
   * Outcome, fires the events, may start Review. With `answered` (the columns the assess job wrote) the record is not
   * read first: the Outcome's conditional UPDATE is the one statement. UnrebuildableAssessment when the record no
   * longer fits the Judgment, or no longer exists.
   */
  async decide(
    id: number,
    judgment: Judgment,
    answered?: AnsweredColumns,
    /** How a cascade tier's Review Outcome asks the next tier (absent: it goes to Review). */
    escalate: LinkCascade['escalate'] = null,
  ): Promise<Decided> {
    const record = answered ? this.rows.restore({ ...answered, id }) : await this.records.find(id);
    if (!record) {
      throw UnrebuildableAssessment.recordGone(id, judgmentName(judgment));
    }
    return this.replay.outcome(record, judgment, escalate);
  }

  private dataSource(): DataSource | null {
    return this.rows.dataSource();
  }
}
