import type { PaidAnswers, TierChoice } from '../judge/judge.types';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { TraceCarrier } from '../telemetry/judgment.tracing';
import type { JudgmentPayload } from './judgment.payload';

/** When the outage a job is riding out began (epoch ms), and how many times it waited for it. */
export interface OutageMarks {
  readonly outageSince?: number;
  readonly outageRetries?: number;
}

/** Data of an assess job. */
export interface AssessJobData extends OutageMarks {
  readonly judgment: JudgmentPayload;
  /** The tier of the Judgment's escalation cascade to ask (absent: the first), and the record it escalates from. */
  readonly tier?: TierChoice;
  /** The dispatching trace context (W3C `traceparent`), so the worker's spans join the dispatcher's trace. */
  readonly trace?: TraceCarrier;
}

/** The columns of an answered record that deciding reads (the Outcome's UPDATE returns the rest). */
export type AnsweredColumns = Pick<AssessmentRecord, (typeof ANSWERED_COLUMNS)[number]>;

const ANSWERED_COLUMNS = [
  'judgment',
  'subjectType',
  'subjectId',
  'questionsFingerprint',
  'answers',
  'engine',
  'model',
  'requestId',
  'provenanceDetails',
] as const;

/** What the decide job carries of the record its assess job wrote. */
export function answeredColumns(record: AssessmentRecord): AnsweredColumns {
  return Object.fromEntries(ANSWERED_COLUMNS.map((column) => [column, record[column]])) as AnsweredColumns;
}

/** Data of a decide job: the record to decide (by id) and the Judgment it was assessed for. */
export interface DecideJobData extends OutageMarks {
  readonly record: number;
  /**
   * The record's answered columns, so deciding does not read the record first. Absent when the assess job chained
   * from a progress checkpoint an earlier version wrote (or was queued by a version without it): the decide job then
   * reads the record.
   */
  readonly answered?: AnsweredColumns;
  readonly judgment: JudgmentPayload;
  /** The assess job's trace context. */
  readonly trace?: TraceCarrier;
}

/** Data of a review deadline job: the record to expire when its deadline comes. */
export interface ExpireJobData {
  readonly record: number;
}

/** The id of a record's deadline job: one per record (a record enters Review once). */
export function expireJobId(recordId: number): string {
  return `expire-${recordId}`;
}

/**
 * What the assess job stores in its progress so a later run resumes there: the paid answers the Judge could not record
 * (an outage), to record without asking the Engine again. `record` is only read: versions before the record held its
 * job's id stored the record there once the Judge had recorded the Assessment.
 */
export type AssessCheckpoint = { readonly record: number } | { readonly paid: PaidAnswers };

/** How long finished jobs are kept: completed ones make re-added ids duplicates (idempotency), failed ones are evidence. */
export const KEEP_JOBS = {
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;

/** The id of a new assess job. Ids never contain `:` and are never all digits (BullMQ rules for custom ids). */
export function assessJobId(dispatchId: string): string {
  return `assess-${dispatchId}`;
}

/** The decide job's id, derived from its assess job's, so a retried assess job cannot chain a second decide job. */
export function decideJobId(assessId: string): string {
  return `decide-${assessId.replace(/^assess-/, '')}`;
}

/**
 * The id of the assess job asking tier `tier` (2 or more) of a cascade, escalated by decide job `decideId`: one per
 * dispatch and tier, so a retried decide job cannot queue the next tier twice.
 */
export function escalatedJobId(decideId: string, tier: number): string {
  return `assess-${decideId.replace(/^decide-/, '').replace(/-tier\d+$/, '')}-tier${tier}`;
}

/** OpenTelemetry messaging attributes of a job sent or processed (BullMQ is not a named system: its name is used). */
export function messagingAttributes(
  queue: string,
  jobId: string | undefined,
  operation: 'send' | 'process',
  judgment: string,
): Record<string, string> {
  return {
    'messaging.system': 'bullmq',
    'messaging.operation.type': operation,
    'messaging.destination.name': queue,
    ...(jobId ? { 'messaging.message.id': jobId } : {}),
    'judgment.name': judgment,
  };
}
