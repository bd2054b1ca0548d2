/**
 * Agreement between reviewers, from their individual Resolutions (votes) on cases an N-of-M Review sent to several
 * people: raw agreement (the share of pairs of votes that agree) and Cohen's kappa (agreement beyond what each side's
 * own mix of Outcomes would give by chance), each with the number of pairs it rests on. Pure: no I/O.
 */

/** One reviewer's Resolution on one record. */
export interface ReviewVoteRow {
  readonly recordId: number;
  readonly judgment: string;
  /** The reviewer as recorded, `type #id`. */
  readonly reviewer: string;
  readonly outcome: string;
  readonly createdAt: Date;
}

/** Agreement over a set of paired votes. */
export interface AgreementFigures {
  /** How many pairs of votes (two reviewers on one record) the figures rest on. */
  readonly pairs: number;
  /** The share of pairs that agree, in [0, 1]; null without pairs. */
  readonly rawAgreement: number | null;
  /**
   * Cohen's kappa, (pₒ − pₑ) / (1 − pₑ): 1 is full agreement, 0 what chance gives, below 0 worse than chance. Null
   * without pairs, or when chance agreement is already 1 (both sides only ever chose one and the same Outcome).
   */
  readonly kappa: number | null;
}

/** A Judgment's agreement, over every pair of votes on each of its records (earlier vote first). */
export interface JudgmentAgreement extends AgreementFigures {
  readonly judgment: string;
  /** Records with two votes or more. */
  readonly records: number;
}

/** Two reviewers' agreement on the records both voted on. */
export interface ReviewerPairAgreement extends AgreementFigures {
  readonly judgment: string;
  /** The two reviewers, in name order. */
  readonly reviewers: readonly [string, string];
}

/** Agreement per Judgment and per reviewer pair. */
export interface ReviewerAgreement {
  readonly judgments: JudgmentAgreement[];
  readonly pairs: ReviewerPairAgreement[];
}

/** Cohen's kappa and raw agreement over pairs of labels (first rater, second rater). */
export function cohensKappa(pairs: ReadonlyArray<readonly [string, string]>): AgreementFigures {
  const n = pairs.length;
  if (n === 0) return { pairs: 0, rawAgreement: null, kappa: null };
  const first = new Map<string, number>();
  const second = new Map<string, number>();
  let agreed = 0;
  for (const [a, b] of pairs) {
    if (a === b) agreed++;
    first.set(a, (first.get(a) ?? 0) + 1);
    second.set(b, (second.get(b) ?? 0) + 1);
  }
  const observed = agreed / n;
  let chance = 0;
  for (const [label, count] of first) chance += (count / n) * ((second.get(label) ?? 0) / n);
  const kappa = Math.abs(1 - chance) < 1e-12 ? null : (observed - chance) / (1 - chance);
  return { pairs: n, rawAgreement: observed, kappa };
}

/** The figures per Judgment and per reviewer pair (Judgments, then pairs, in name order). */
export function reviewerAgreement(votes: readonly ReviewVoteRow[]): ReviewerAgreement {
  const byRecord = new Map<number, ReviewVoteRow[]>();
  for (const vote of votes) {
    const list = byRecord.get(vote.recordId) ?? [];
    list.push(vote);
    byRecord.set(vote.recordId, list);
  }
  const perJudgment = new Map<string, { records: number; pairs: [string, string][] }>();
  const perPair = new Map<string, { judgment: string; reviewers: [string, string]; pairs: [string, string][] }>();
  for (const list of byRecord.values()) {
    if (list.length < 2) continue;
    list.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.reviewer.localeCompare(b.reviewer));
    const judgment = list[0].judgment;
    const entry = perJudgment.get(judgment) ?? { records: 0, pairs: [] };
    entry.records++;
    perJudgment.set(judgment, entry);
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        entry.pairs.push([list[i].outcome, list[j].outcome]);
        const [x, y] = list[i].reviewer < list[j].reviewer ? [list[i], list[j]] : [list[j], list[i]];
        const key = JSON.stringify([judgment, x.reviewer, y.reviewer]);
        const pair = perPair.get(key) ?? { judgment, reviewers: [x.reviewer, y.reviewer], pairs: [] };
        pair.pairs.push([x.outcome, y.outcome]);
        perPair.set(key, pair);
      }
    }
  }
  const judgments = [...perJudgment.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([judgment, { records, pairs }]) => ({ judgment, records, ...cohensKappa(pairs) }));
  const pairs = [...perPair.values()]
    .sort(
      (a, b) =>
        a.judgment.localeCompare(b.judgment) ||
        a.reviewers[0].localeCompare(b.reviewers[0]) ||
        a.reviewers[1].localeCompare(b.reviewers[1]),
    )
    .map(({ judgment, reviewers, pairs: labels }) => ({ judgment, reviewers, ...cohensKappa(labels) }));
  return { judgments, pairs };
}
