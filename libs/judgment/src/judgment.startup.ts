import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { JudgmentChecks } from './checks/judgment-checks.service';
import { judgmentMetadata } from './definition/judgment.decorator';
import { cascadeThresholdProblems } from './definition/cascade';
import { decisionMetadata, isDecision } from './decision/decision.decorator';
import { decisionThresholds } from './decision/thresholds';
import { describeFinding, InvalidJudgment, JudgmentCheckFailed } from './errors';
import { JudgmentRegistry } from './registry/judgment.registry';
import { AnswerSource } from './judge/answer-source';
import { RecordWriter } from './persistence/record.writer';
import { JudgmentLogger } from './logging/judgment.logger';
import { CalibrationGuard } from './routing/calibration.guard';

/**
 * Surfaces configuration errors at startup: the default connection and the connections named by registered
 * Judgments must build, persistence needs a DataSource with the records' tables and columns (one catalog query), and
 * what `judgment check` fails on (declaration limits, Decisions, what a connection cannot ask, default Decisions, the
 * schema) refuses the start. Its warnings are logged once. With a
 * calibration lock, it refuses a lock naming an unknown Judgment and lists (as warnings) the Decisions without a lock
 * entry or with a stale one. It warns when `persistence.retentionDays` is shorter than a registered Decision's
 * review deadline (`prune()` could delete a record still waiting in Review).
 */
@Injectable()
export class JudgmentStartupCheck implements OnApplicationBootstrap {
  constructor(
    private readonly answers: AnswerSource,
    private readonly registry: JudgmentRegistry,
    private readonly rows: RecordWriter,
    private readonly checks: JudgmentChecks,
    private readonly guard: CalibrationGuard,
    private readonly judgmentLogger: JudgmentLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const named = this.registry
      .judgments()
      .flatMap((cls) => {
        const metadata = judgmentMetadata(cls);
        return metadata.cascade ? metadata.cascade.map((tier) => tier.connection) : [metadata.engine];
      })
      .filter((name): name is string => name !== null);
    this.answers.validate(named);
    this.checkCascades();
    if (this.rows.persistence.enabled) this.rows.repository();
    const report = await this.checks.runWithDatabase();
    if (report.failures > 0) throw new JudgmentCheckFailed(report);
    if (report.warnings > 0) {
      // Written even when `log` is false: it warns about the app's declarations, like an error would.
      this.judgmentLogger.configurationWarning(
        `judgment check: ${report.warnings} Question${report.warnings === 1 ? '' : 's'} may mislead; run \`judgment check\` for the fixes.`,
        { warnings: report.findings.map(describeFinding) },
      );
    }
    for (const problem of this.guard.problems((cls) => this.registry.decisionOf(cls))) {
      this.judgmentLogger.warn('Decision not calibrated.', { ...problem });
    }
    this.warnRetentionBelowDeadlines();
  }

  /** One warning per Decision whose review deadline outlasts the records' retention. */
  private warnRetentionBelowDeadlines(): void {
    const { enabled, retentionDays } = this.rows.persistence;
    if (!enabled || retentionDays === null) return;
    for (const decision of this.registry.decisions()) {
      const { name, reviewDeadline } = decisionMetadata(decision);
      if (!reviewDeadline || reviewDeadline.after <= retentionDays * 86_400_000) continue;
      // Written even when `log` is false, like the other configuration warnings.
      this.judgmentLogger.configurationWarning('Retention shorter than a review deadline.', {
        decision: name,
        reviewDeadline: reviewDeadline.declared,
        retentionDays,
        problem:
          `persistence.retentionDays (${retentionDays} days) is shorter than the review deadline of ${name} ` +
          `(${reviewDeadline.declared}): prune() may delete a record still waiting in Review before its deadline ` +
          'resolves it.',
        fix: 'Raise persistence.retentionDays above the longest review deadline, or shorten the deadline.',
      });
    }
  }

  /** Refuses a cascade whose tiers name thresholds its Decision does not declare, or that can never escalate. */
  private checkCascades(): void {
    const problems = this.registry.judgments().flatMap((cls) => {
      const metadata = judgmentMetadata(cls);
      if (!metadata.cascade || !metadata.decision || !isDecision(metadata.decision)) return [];
      const decision = decisionMetadata(metadata.decision);
      return cascadeThresholdProblems(metadata.name, metadata.cascade, {
        name: decision.name,
        thresholds: decisionThresholds(this.registry.decisionOf(metadata.decision)),
        reviewOutcomes: decision.review.size,
      });
    });
    if (problems.length > 0) throw new InvalidJudgment(problems.join('\n'));
  }
}
