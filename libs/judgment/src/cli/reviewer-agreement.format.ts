import type { AgreementFigures, ReviewerAgreement } from '../review/reviewer-agreement';
import { ReviewVotes } from '../review/review-votes.service';
import type { CliContext } from './cli.context';
import { table } from './cli.output';

/** What `audit --json` and `status --json` print of the reviewers' agreement, or why it could not be read. */
export interface ReviewerAgreementReport extends ReviewerAgreement {
  /** Why the votes could not be read (persistence off, the migration not run, a database error), or null. */
  readonly problem: string | null;
}

const share = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)} %`);
const kappa = (figures: AgreementFigures) =>
  figures.kappa !== null ? figures.kappa.toFixed(3) : figures.pairs === 0 ? '—' : '— (one Outcome only)';

/** The reviewers' agreement on N-of-M votes, as `judgment audit` prints it. */
export function formatReviewerAgreement(report: ReviewerAgreementReport): string {
  const title = "Reviewer agreement (N-of-M votes): raw agreement and Cohen's kappa";
  if (report.problem) return `${title}: not read. ${report.problem}`;
  if (report.judgments.length === 0) {
    return `${title}: no case has two votes yet (a Decision's review: { reviewers: 2 } asks for them).`;
  }
  const byJudgment = table(
    ['Judgment', 'Cases (2+ votes)', 'Pairs', 'Raw agreement', 'Kappa'],
    report.judgments.map((row) => [row.judgment, row.records, row.pairs, share(row.rawAgreement), kappa(row)]),
  );
  const byPair = table(
    ['Judgment', 'Reviewers', 'Pairs', 'Raw agreement', 'Kappa'],
    report.pairs.map((row) => [
      row.judgment,
      `${row.reviewers[0]} and ${row.reviewers[1]}`,
      row.pairs,
      share(row.rawAgreement),
      kappa(row),
    ]),
  );
  return `${title}, each with the pairs of votes it rests on:\n${byJudgment}\nPer reviewer pair:\n${byPair}`;
}

/**
 * The reviewers' agreement on N-of-M votes (of one Judgment when named), or why it could not be read: a database
 * without the votes' table (migration ReviewVotes1765530000000 not run) is a problem to report, not a failure.
 */
export async function reviewerAgreementReport(
  context: CliContext,
  judgment?: string,
): Promise<ReviewerAgreementReport> {
  try {
    return { ...(await context.get(ReviewVotes).agreement(judgment)), problem: null };
  } catch (error) {
    return { judgments: [], pairs: [], problem: (error as Error).message };
  }
}
