import { Injectable } from '@nestjs/common';
import { decisionMetadata } from '../decision/decision.decorator';
import { ReviewBacklogAtRisk, type ReviewBacklogForecast } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { JudgmentLogger } from '../logging/judgment.logger';
import { DEADLINE_RESOLVER, RecordWriter } from '../persistence/record.writer';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { FORECAST_WINDOW_HOURS, forecastBacklog } from './backlog-forecast';

/** A Judgment's Review backlog forecast (`judgment status`, ReviewBacklogAtRisk): the event's type. */
export type JudgmentBacklogForecast = ReviewBacklogForecast;

const HOUR = 3_600_000;

/**
 * Forecasts each Judgment's Review backlog against its review deadlines (BACKLOG_FORECAST_METHOD), from the records:
 * the cases in Review now and their deadlines, and the cases that entered Review and that a person resolved in the
 * last FORECAST_WINDOW_HOURS hours. `check()` announces ReviewBacklogAtRisk once per risk episode of a Judgment (in
 * this process): when cases are first forecast to expire unresolved, again only after a forecast with none.
 */
@Injectable()
export class ReviewBacklog {
  private readonly atRisk = new Set<string>();

  constructor(
    private readonly rows: RecordWriter,
    private readonly registry: JudgmentRegistry,
    private readonly events: JudgmentEventsPublisher,
    private readonly logger: JudgmentLogger,
  ) {}

  /** Every Judgment with cases in Review now or in the window, by name. */
  async forecast(now: Date = new Date()): Promise<JudgmentBacklogForecast[]> {
    const since = new Date(now.getTime() - FORECAST_WINDOW_HOURS * HOUR);
    const repository = this.rows.repository();
    const pending = await repository
      .createQueryBuilder('record')
      .select('record.judgment', 'judgment')
      .addSelect('record.decision', 'decision')
      .addSelect('record.review_deadline_at', 'deadline')
      .where('record.review_requested_at IS NOT NULL')
      .andWhere('record.resolved_at IS NULL')
      .getRawMany<{ judgment: string; decision: string | null; deadline: Date | string | null }>();
    const arrivals = await repository
      .createQueryBuilder('record')
      .select('record.judgment', 'judgment')
      .addSelect('record.decision', 'decision')
      .addSelect('COUNT(*)', 'count')
      .where('record.review_requested_at >= :since', { since })
      .groupBy('record.judgment')
      .addGroupBy('record.decision')
      .getRawMany<{ judgment: string; decision: string | null; count: string | number }>();
    const resolutions = await repository
      .createQueryBuilder('record')
      .select('record.judgment', 'judgment')
      .addSelect('COUNT(*)', 'count')
      .where('record.review_requested_at IS NOT NULL')
      .andWhere('record.resolved_at >= :since', { since })
      .andWhere('NOT (record.resolver_type = :type AND record.resolver_id = :id)', {
        type: DEADLINE_RESOLVER.resolverType,
        id: DEADLINE_RESOLVER.resolverId,
      })
      .groupBy('record.judgment')
      .getRawMany<{ judgment: string; count: string | number }>();

    const judgments = new Map<
      string,
      { hoursLeft: Array<number | null>; arrivals: number; resolutions: number; decisions: Set<string> }
    >();
    const entry = (judgment: string) => {
      const found = judgments.get(judgment) ?? { hoursLeft: [], arrivals: 0, resolutions: 0, decisions: new Set() };
      judgments.set(judgment, found);
      return found;
    };
    for (const row of pending) {
      const found = entry(row.judgment);
      found.hoursLeft.push(row.deadline === null ? null : (new Date(row.deadline).getTime() - now.getTime()) / HOUR);
      if (row.decision !== null) found.decisions.add(row.decision);
    }
    for (const row of arrivals) {
      const found = entry(row.judgment);
      found.arrivals += Number(row.count);
      if (row.decision !== null) found.decisions.add(row.decision);
    }
    for (const row of resolutions) entry(row.judgment).resolutions += Number(row.count);

    return [...judgments.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([judgment, found]) => {
        const deadline = this.deadlineOf(found.decisions);
        return {
          judgment,
          deadline: deadline?.declared ?? null,
          ...forecastBacklog({
            hoursLeft: found.hoursLeft,
            arrivals: found.arrivals,
            resolutions: found.resolutions,
            windowHours: FORECAST_WINDOW_HOURS,
            deadlineHours: deadline === null ? null : deadline.after / HOUR,
          }),
        };
      });
  }

  /**
   * Forecasts, then announces ReviewBacklogAtRisk for each Judgment whose risk episode begins: cases are forecast to
   * expire unresolved and were not at the previous check. A Judgment with none ends its episode.
   */
  async check(now: Date = new Date()): Promise<JudgmentBacklogForecast[]> {
    const forecasts = await this.forecast(now);
    const risky = new Set(forecasts.filter((f) => f.atRisk > 0).map((f) => f.judgment));
    for (const judgment of [...this.atRisk]) if (!risky.has(judgment)) this.atRisk.delete(judgment);
    for (const forecast of forecasts) {
      if (forecast.atRisk === 0 || this.atRisk.has(forecast.judgment)) continue;
      this.atRisk.add(forecast.judgment);
      this.logger.warn('Review backlog at risk.', {
        judgment: forecast.judgment,
        atRisk: forecast.atRisk,
        inReview: forecast.inReview,
        deadline: forecast.deadline,
      });
      await this.events.emit(new ReviewBacklogAtRisk(forecast, now));
    }
    return forecasts;
  }

  /** The longest review deadline among the registered Decisions named, or null when none declares one. */
  private deadlineOf(decisions: ReadonlySet<string>): { after: number; declared: string } | null {
    let longest: { after: number; declared: string } | null = null;
    for (const name of decisions) {
      if (!this.registry.hasDecision(name)) continue;
      const deadline = decisionMetadata(this.registry.decision(name)).reviewDeadline;
      if (deadline && (longest === null || deadline.after > longest.after)) longest = deadline;
    }
    return longest;
  }
}
