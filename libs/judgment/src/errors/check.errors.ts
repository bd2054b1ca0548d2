import { InvalidEvidence } from './declaration.errors';
import { JudgmentError } from './judgment.error';

/** How bad a finding of `judgment check` is: a failure stops the app from starting, a warning does not. */
export type CheckSeverity = 'failure' | 'warning';

/** One thing `judgment check` (and startup) found about a Judgment or a Decision, with the fix. */
export interface CheckFinding {
  readonly severity: CheckSeverity;
  /** The rule that found it, e.g. `negative-likelihood` (the README's "Questions that work" lists them). */
  readonly rule: string;
  /** The Judgment's registered name; null for a finding about a Decision alone or about the app. */
  readonly judgment: string | null;
  /** The Decision's registered name, when the finding is about one. */
  readonly decision: string | null;
  /** The question key (`set.label` for a Likelihood Set label); null when the finding is not about one question. */
  readonly key: string | null;
  /** What is wrong. */
  readonly problem: string;
  /** What to change. */
  readonly fix: string;
}

/** What `judgment check` reports: every finding, failures first. */
export interface CheckReport {
  /** The registered Judgments checked, by name. */
  readonly judgments: readonly string[];
  /** The registered Decisions checked, by name. */
  readonly decisions: readonly string[];
  readonly failures: number;
  readonly warnings: number;
  readonly findings: readonly CheckFinding[];
}

/**
 * The app refused to start: a registered Judgment or Decision would fail when asked or decided, or the database lacks
 * the records' tables or columns (`judgment check`).
 */
export class JudgmentCheckFailed extends JudgmentError {
  constructor(readonly report: CheckReport) {
    const failures = report.findings.filter((finding) => finding.severity === 'failure');
    super(
      `${failures.length} check${failures.length === 1 ? '' : 's'} of \`judgment check\` failed, so the app does not ` +
        `start:\n${failures.map((finding) => `- ${describeFinding(finding)}`).join('\n')}\n` +
        'Run `judgment check` for the full report.',
    );
  }
}

/** A finding in one line: where, what, and the fix. */
export function describeFinding(finding: CheckFinding): string {
  const where = [finding.judgment, finding.decision && `Decision ${finding.decision}`].filter(Boolean).join(', ');
  const key = finding.key === null ? '' : ` "${finding.key}"`;
  return `${where || 'The app'}${key} [${finding.rule}]: ${finding.problem} Fix: ${finding.fix}`;
}

/**
 * A question's text names (in backticks) an Evidence path the prepared Evidence does not have, and the module option
 * `strictEvidencePaths` refuses such a round before asking.
 */
export class MissingEvidencePath extends InvalidEvidence {
  constructor(
    readonly judgment: string,
    readonly key: string,
    path: string,
  ) {
    super(
      path,
      `is missing, but Question "${key}" of ${judgment} names it, so nothing was asked (strictEvidencePaths). ` +
        `Show \`${path}\` in evidence(), or rephrase the question without it.`,
    );
  }
}
