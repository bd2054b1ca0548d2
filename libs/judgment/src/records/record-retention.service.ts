import { Injectable } from '@nestjs/common';
import { LessThan } from 'typeorm';
import { RecordWriter } from '../persistence/record.writer';

const DAY_MS = 86_400_000;

/** Retention: deletes the records older than `persistence.retentionDays`. */
@Injectable()
export class RecordRetention {
  constructor(private readonly rows: RecordWriter) {}

  /** The configured retention in days; null keeps every record. */
  get retentionDays(): number | null {
    return this.rows.persistence.retentionDays;
  }

  /**
   * Deletes records created more than `persistence.retentionDays` days ago (null keeps everything). Resolves to the
   * number of records deleted.
   */
  async prune(): Promise<number> {
    const days = this.retentionDays;
    if (days === null) return 0;
    const result = await this.rows.repository().delete({ createdAt: LessThan(new Date(Date.now() - days * DAY_MS)) });
    return result.affected ?? 0;
  }
}
