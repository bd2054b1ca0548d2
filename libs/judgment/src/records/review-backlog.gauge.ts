import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type ObservableCallback, type ObservableGauge, metrics } from '@opentelemetry/api';
import { RecordWriter } from '../persistence/record.writer';
import { INSTRUMENTATION_SCOPE } from '../telemetry/judgment.tracing';
import { RecordQueries } from './record-queries.service';

/**
 * The `judgment.review.backlog` gauge: records awaiting Review by `judgment.name`, counted in the database each time
 * the app's metric reader collects (so every process reports the same, shared backlog). Registered when the module
 * starts, on the MeterProvider the app registered before it (a no-op without one); nothing without persistence.
 */
@Injectable()
export class ReviewBacklogGauge implements OnModuleInit, OnModuleDestroy {
  private gauge: ObservableGauge | null = null;
  private readonly observe: ObservableCallback = async (result) => {
    for (const [judgment, count] of Object.entries(await this.queries.backlog())) {
      result.observe(count, { 'judgment.name': judgment });
    }
  };

  constructor(
    private readonly rows: RecordWriter,
    private readonly queries: RecordQueries,
  ) {}

  onModuleInit(): void {
    if (!this.rows.persistence.enabled || this.rows.dataSource() === null) return;
    this.gauge = metrics.getMeter(INSTRUMENTATION_SCOPE).createObservableGauge('judgment.review.backlog', {
      description: 'Records awaiting Review, by Judgment.',
      unit: '{record}',
    });
    this.gauge.addCallback(this.observe);
  }

  onModuleDestroy(): void {
    this.gauge?.removeCallback(this.observe);
  }
}
