import { Injectable, Logger } from '@nestjs/common';
import { REVIEW_SUMMARY_MAX, judgmentMetadata } from '../definition/judgment.decorator';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { AssessmentRecords } from '../records/assessment-records.service';
import { JudgmentRegistry } from '../registry/judgment.registry';

/** The longest text field the default summary takes from a Subject. */
const SHORT_TEXT = 80;

/**
 * The one-line summaries of the Review list's rows: the Judgment's `reviewSummary(subject)` when it declares one,
 * else the Subject's entity name and key with its first short text field. A hook that throws (or returns no text)
 * shows the record id; its error is logged once per Judgment, not once per row or page.
 */
@Injectable()
export class ReviewSummaries {
  private readonly logger = new Logger('JudgmentReviewDesk');
  private readonly failing = new Set<string>();

  constructor(
    private readonly records: AssessmentRecords,
    private readonly registry: JudgmentRegistry,
  ) {}

  /** The summary of each record, by id (the Subjects loaded in one query per entity type). */
  async of(records: readonly AssessmentRecord[]): Promise<Map<number, string>> {
    const subjects = await this.records.subjects(records);
    return new Map(records.map((record) => [record.id, this.summary(record, subjects.get(record.id) ?? null)]));
  }

  private summary(record: AssessmentRecord, subject: object | null): string {
    const fallback = `Record #${record.id}`;
    if (record.subjectType === null || record.subjectId === null) return fallback;
    const reference = `${record.subjectType} #${record.subjectId}`;
    if (subject === null) return `${reference} (not found)`;
    const hook = this.registry.hasJudgment(record.judgment)
      ? judgmentMetadata(this.registry.judgment(record.judgment)).reviewSummary
      : null;
    if (hook === null) return clip(defaultSummary(reference, subject, record.subjectId));
    try {
      const text: unknown = hook(subject);
      if (typeof text !== 'string' || text.trim() === '') {
        throw new TypeError(`it returned ${text === '' ? 'an empty string' : typeof text}, not a line of text`);
      }
      return clip(text.replace(/\s+/g, ' ').trim());
    } catch (error) {
      this.logOnce(record.judgment, error);
      return fallback;
    }
  }

  private logOnce(judgment: string, error: unknown): void {
    if (this.failing.has(judgment)) return;
    this.failing.add(judgment);
    const message = error instanceof Error ? error.message : String(error);
    this.logger.error(
      `The reviewSummary of the Judgment ${judgment} failed: ${message}. The review queue shows record ids for its ` +
        'rows instead; fix the hook in its @Judgment() options. (Logged once per Judgment.)',
    );
  }
}

/** `Listing #3 — Blue kettle, barely used`: the reference and the Subject's first short text field, if any. */
function defaultSummary(reference: string, subject: object, key: string): string {
  for (const value of Object.values(subject)) {
    if (typeof value !== 'string') continue;
    const text = value.replace(/\s+/g, ' ').trim();
    if (text !== '' && text !== key && text.length <= SHORT_TEXT) return `${reference} — ${text}`;
  }
  return reference;
}

function clip(text: string): string {
  return text.length <= REVIEW_SUMMARY_MAX ? text : `${text.slice(0, REVIEW_SUMMARY_MAX - 1)}…`;
}
