import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { type DataSource, LessThan } from 'typeorm';
import { JudgmentLogger, describeError } from '../logging/judgment.logger';
import { RecordWriter } from '../persistence/record.writer';
import { ReviewVotes } from '../review/review-votes.service';
import {
  DEFAULT_PARTITION,
  MONTHS_AHEAD,
  createMonthPartition,
  defaultPartitionRows,
  dropMonthPartition,
  isPartitioned,
  monthStart,
  monthlyPartitions,
  partitionExists,
} from '../persistence/record-partitions';

const DAY_MS = 86_400_000;

/** What one prune did: records removed with their whole monthly partition, and records deleted row by row. */
export interface PruneResult {
  readonly dropped: number;
  readonly deleted: number;
  /** The partitions dropped, oldest first (none on SQLite or an unpartitioned table). */
  readonly partitions: readonly string[];
}

/**
 * Retention: removes the records older than `persistence.retentionDays`. On PostgreSQL with the records partitioned
 * by month (migration PartitionedAssessments1765800000000) it also keeps the coming months' partitions created, at
 * startup and on every prune, and warns when rows wait in the default partition.
 */
@Injectable()
export class RecordRetention implements OnApplicationBootstrap {
  constructor(
    private readonly rows: RecordWriter,
    private readonly logger: JudgmentLogger,
    private readonly votes: ReviewVotes,
  ) {}

  /** The configured retention in days; null keeps every record. */
  get retentionDays(): number | null {
    return this.rows.persistence.retentionDays;
  }

  /** Creates the coming months' partitions of a partitioned records table; a failure is a warning, never a crash. */
  async onApplicationBootstrap(): Promise<void> {
    const dataSource = this.partitionable();
    if (!dataSource) return;
    try {
      if (await isPartitioned(dataSource)) await this.keepPartitionsAhead(dataSource);
    } catch (error) {
      this.logger.configurationWarning('The monthly partitions of the records could not be created ahead.', {
        exception: describeError(error),
      });
    }
  }

  /**
   * Deletes records created more than `persistence.retentionDays` days ago (null keeps everything), and the N-of-M
   * votes cast before the same cut-off. Resolves to the number of records deleted.
   */
  async prune(): Promise<number> {
    const { dropped, deleted } = await this.pruneRecords();
    return dropped + deleted;
  }

  /**
   * Prunes like `prune()`, and says how: on a partitioned table every monthly partition whose whole month is older
   * than the retention is detached and dropped (one catalog change, however many rows), and the rest is deleted row
   * by row (the default partition's rows, and the part of a month that straddles the cut-off).
   */
  async pruneRecords(now = new Date()): Promise<PruneResult> {
    const days = this.retentionDays;
    if (days === null) return { dropped: 0, deleted: 0, partitions: [] };
    const cutoff = new Date(now.getTime() - days * DAY_MS);
    let dropped = 0;
    const partitions: string[] = [];
    const dataSource = this.partitionable();
    if (dataSource && (await isPartitioned(dataSource))) {
      await this.keepPartitionsAhead(dataSource, now);
      for (const { name, month } of await monthlyPartitions(dataSource)) {
        if (monthStart(month, 1) > cutoff) break;
        dropped += await dataSource.transaction((manager) => dropMonthPartition(manager, name));
        partitions.push(name);
      }
    }
    const result = await this.rows.repository().delete({ createdAt: LessThan(cutoff) });
    // The reviewers' votes go with the records they were cast on.
    await this.votes.prune(cutoff);
    return { dropped, deleted: result.affected ?? 0, partitions };
  }

  /**
   * Creates the partitions of this month and the next MONTHS_AHEAD (moving their rows out of the default partition),
   * then warns when the default partition still holds rows: the months they belong to have no partition (older than
   * the partitioned range), so retention deletes them row by row.
   */
  private async keepPartitionsAhead(dataSource: DataSource, now = new Date()): Promise<void> {
    for (let ahead = 0; ahead <= MONTHS_AHEAD; ahead++) {
      const month = monthStart(now, ahead);
      let moved: number | null;
      try {
        moved = await dataSource.transaction((manager) => createMonthPartition(manager, month));
      } catch (error) {
        // Another process starting (or pruning) at the same time created it first: nothing left to do.
        if (await partitionExists(dataSource, month)) continue;
        throw error;
      }
      if (moved) {
        this.logger.configurationWarning(
          'Rows of a month without a partition were moved out of the default partition.',
          {
            partition_month: month.toISOString().slice(0, 7),
            rows: moved,
          },
        );
      }
    }
    const waiting = await defaultPartitionRows(dataSource);
    if (waiting > 0) {
      this.logger.configurationWarning(
        `${waiting} records are in the default partition ${DEFAULT_PARTITION}: their months have no partition, so ` +
          'nothing failed, but retention deletes them row by row. Monthly partitions are created ahead at startup ' +
          'and by `judgment prune`; run either at least once a month.',
        { rows: waiting },
      );
    }
  }

  /** The DataSource when persistence is on and it is PostgreSQL (the only database whose records are partitioned). */
  private partitionable(): DataSource | null {
    if (!this.rows.persistence.enabled) return null;
    const dataSource = this.rows.dataSource();
    return dataSource?.options.type === 'postgres' && dataSource.isInitialized ? dataSource : null;
  }
}
