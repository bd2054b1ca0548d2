import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { judgmentMetadata } from './definition/judgment.decorator';
import { JudgmentRegistry } from './registry/judgment.registry';
import { AnswerSource } from './judge/answer-source';
import { RecordWriter } from './persistence/record.writer';

/**
 * Surfaces configuration errors at startup: the default connection and the connections named by registered
 * Judgments must build, and persistence needs a DataSource.
 */
@Injectable()
export class JudgmentStartupCheck implements OnApplicationBootstrap {
  constructor(
    private readonly answers: AnswerSource,
    private readonly registry: JudgmentRegistry,
    private readonly rows: RecordWriter,
  ) {}

  onApplicationBootstrap(): void {
    const named = this.registry
      .judgments()
      .map((cls) => judgmentMetadata(cls).engine)
      .filter((name): name is string => name !== null);
    this.answers.validate(named);
    if (this.rows.persistence.enabled) this.rows.repository();
  }
}
