import type { DataSource } from 'typeorm';
import { AssessmentRecord } from '../persistence/assessment-record.entity';

/** The window of recorded decisions a capacity check reads the traffic from, in days. */
export const TRAFFIC_WINDOW_DAYS = 7;

/** A Judgment's decisions per day (automatic and sent to Review) at its recorded traffic. */
export interface RecordedTraffic {
  /** Decisions (automatic Outcomes and cases sent to Review) per day over the window. */
  readonly perDay: number;
  /** Decisions counted. */
  readonly decisions: number;
  /** Days they were counted over: the window, or since the first of them when later (at least one day). */
  readonly days: number;
}

/**
 * A Judgment's decided records (automatic Outcomes and cases sent to Review; not Unassessed attempts) of the last
 * TRAFFIC_WINDOW_DAYS days, per day — over the days since the first of them when that is shorter (at least one day).
 * Null when none is recorded, or there is no database.
 */
export async function recordedTraffic(
  dataSource: DataSource | null,
  judgment: string,
  now: Date = new Date(),
): Promise<RecordedTraffic | null> {
  if (dataSource === null || !dataSource.hasMetadata(AssessmentRecord)) return null;
  const since = new Date(now.getTime() - TRAFFIC_WINDOW_DAYS * 86_400_000);
  const row = await dataSource
    .getRepository(AssessmentRecord)
    .createQueryBuilder('record')
    .select('COUNT(*)', 'count')
    .addSelect('MIN(record.created_at)', 'first')
    .where('record.judgment = :judgment', { judgment })
    .andWhere('record.created_at >= :since', { since })
    .andWhere('(record.outcome IS NOT NULL OR record.review_requested_at IS NOT NULL)')
    .andWhere('record.failure_type IS NULL')
    .getRawOne<{ count: string | number; first: Date | string | null }>();
  const decisions = Number(row?.count ?? 0);
  if (decisions === 0 || !row?.first) return null;
  const days = Math.min(TRAFFIC_WINDOW_DAYS, Math.max(1, (now.getTime() - new Date(row.first).getTime()) / 86_400_000));
  return { perDay: decisions / days, decisions, days };
}
