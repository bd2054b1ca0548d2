import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { judgmentMetadata } from './definition/judgment.decorator';
import { JudgmentRegistry } from './registry/judgment.registry';
import { AnswerSource } from './judge/answer-source';
import { RecordWriter } from './persistence/record.writer';
import { JudgmentLogger } from './logging/judgment.logger';
import { CalibrationGuard } from './recording/calibration.guard';
import { Recorder } from './recording/recorder';

/**
 * Surfaces configuration errors at startup: the default connection and the connections named by registered
 * Judgments must build, and persistence needs a DataSource. With a calibration lock, it refuses a lock naming an
 * unknown Judgment and lists (as warnings) the Decisions without a lock entry or with a stale one.
 */
@Injectable()
export class JudgmentStartupCheck implements OnApplicationBootstrap {
  constructor(
    private readonly answers: AnswerSource,
    private readonly registry: JudgmentRegistry,
    private readonly rows: RecordWriter,
    private readonly guard: CalibrationGuard,
    private readonly recorder: Recorder,
    private readonly logger: JudgmentLogger,
  ) {}

  onApplicationBootstrap(): void {
    const named = this.registry
      .judgments()
      .map((cls) => judgmentMetadata(cls).engine)
      .filter((name): name is string => name !== null);
    this.answers.validate(named);
    if (this.rows.persistence.enabled) this.rows.repository();
    for (const problem of this.guard.problems((cls) => this.recorder.decisionOf(cls))) {
      this.logger.warn('Decision not calibrated.', { ...problem });
    }
  }
}
