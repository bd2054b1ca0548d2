import type { DataSource } from 'typeorm';
import { AssessmentRecord } from './assessment-record.entity';

/** The time columns of `judgment_assessments`: `timestamptz` on PostgreSQL (migrations 1765000000000, 1765500000000). */
export const TIME_COLUMNS = [
  'review_requested_at',
  'resolved_at',
  'created_at',
  'updated_at',
  'audit_requested_at',
  'audited_at',
  'claim_expires_at',
  'review_deadline_at',
  'claimed_at',
] as const;

/**
 * Declares the record's time columns `timestamptz` in a PostgreSQL DataSource's metadata, as the migrations make
 * them. One entity class serves PostgreSQL and SQLite, and TypeORM has no column type valid on both (`Date` means
 * `timestamp` on PostgreSQL and `datetime` on SQLite; SQLite refuses `timestamptz`), so the entity says `Date` and
 * the PostgreSQL metadata is corrected here, when JudgmentModule receives the initialised DataSource. What is read and
 * written follows the database's own column type either way; the metadata matters to TypeORM's schema builder run
 * after this (a schema check). An app's `synchronize`, and the TypeORM CLI's `migration:generate`, build their own
 * metadata without it and would turn the columns back to `timestamp`: on PostgreSQL use the migrations (README).
 * Changes nothing on another database.
 */
export function declareTimeZones(dataSource: DataSource): DataSource {
  if (dataSource.driver.options.type !== 'postgres' || !dataSource.hasMetadata(AssessmentRecord)) return dataSource;
  const names: readonly string[] = TIME_COLUMNS;
  for (const column of dataSource.getMetadata(AssessmentRecord).columns) {
    if (names.includes(column.databaseName)) column.type = 'timestamptz';
  }
  return dataSource;
}
