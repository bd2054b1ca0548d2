import type { DataSource } from 'typeorm';
import { AssessmentRecord } from './assessment-record.entity';

/** The time columns of `judgment_assessments`: `timestamptz` on PostgreSQL (migration 1765000000000). */
export const TIME_COLUMNS = [
  'review_requested_at',
  'resolved_at',
  'created_at',
  'updated_at',
  'audit_requested_at',
  'audited_at',
  'claim_expires_at',
  'review_deadline_at',
] as const;

/**
 * Declares the record's time columns `timestamptz` in a PostgreSQL DataSource's metadata, as the migrations make
 * them. One entity class serves PostgreSQL and SQLite, and TypeORM has no column type valid on both (`Date` means
 * `timestamp` on PostgreSQL and `datetime` on SQLite; SQLite refuses `timestamptz`), so the entity says `Date` and
 * the PostgreSQL metadata is corrected here, once the DataSource is built — which TypeORM's schema builder then
 * compares with the database. Changes nothing on another database.
 */
export function declareTimeZones(dataSource: DataSource): DataSource {
  if (dataSource.driver.options.type !== 'postgres' || !dataSource.hasMetadata(AssessmentRecord)) return dataSource;
  const names: readonly string[] = TIME_COLUMNS;
  for (const column of dataSource.getMetadata(AssessmentRecord).columns) {
    if (names.includes(column.databaseName)) column.type = 'timestamptz';
  }
  return dataSource;
}
