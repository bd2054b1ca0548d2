import { MissingEvidencePath } from '../errors';
import type { JudgmentLogger } from '../logging/judgment.logger';
import type { DescribedAttempt } from './attempt';

/**
 * What the Judge does, before asking, about a question naming an Evidence path the Evidence does not have: logs one
 * warning per Judgment and path for the life of the Judge (the round still goes out), or, with
 * `strictEvidencePaths`, refuses the round with MissingEvidencePath.
 */
export class EvidencePathWarnings {
  private readonly warned = new Set<string>();

  constructor(
    private readonly strict: boolean,
    private readonly logger: JudgmentLogger,
  ) {}

  check(attempt: DescribedAttempt): void {
    for (const { key, path } of attempt.missingEvidencePaths) {
      if (this.strict) throw new MissingEvidencePath(attempt.name, key, path);
      const id = JSON.stringify([attempt.name, path]);
      if (this.warned.has(id)) continue;
      this.warned.add(id);
      this.logger.warn('A question names an Evidence path the Evidence does not have; it is asked anyway.', {
        judgment: attempt.name,
        key,
        path,
        fix: `Show \`${path}\` in evidence(), or rephrase the question (strictEvidencePaths refuses such rounds).`,
      });
    }
  }
}
