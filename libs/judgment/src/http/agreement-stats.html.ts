import type { AgreementFigures, ReviewerAgreement } from '../review/reviewer-agreement';
import { e, layout } from './review-page.html';

/** What the desk's agreement page shows. */
export interface AgreementStatsView {
  readonly base: string;
  readonly agreement: ReviewerAgreement;
  /** The Judgment the figures are limited to, or undefined for all. */
  readonly judgment?: string;
  readonly reviewer: { readonly type: string; readonly id: string } | null;
}

const STYLE = `
td.number,th.number{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#444;max-width:48rem}
caption{text-align:left;font-weight:600;font-size:1.15rem;padding:1.25rem 0 .25rem}`;

/** A share as a percentage with one decimal, or a dash. */
function percent(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)} %`;
}

/** Kappa to 3 decimals, or a dash with why there is none. */
function kappa(value: number | null, figures: AgreementFigures): string {
  if (value !== null) return value.toFixed(3);
  return figures.pairs === 0 ? '—' : '— (one Outcome only)';
}

/**
 * Agreement between reviewers on N-of-M Reviews (issue 30, point 5): per Judgment and per reviewer pair, raw agreement
 * and Cohen's kappa with the number of pairs of votes each rests on. Server-rendered like the rest of the desk.
 */
export function agreementStatsPage(view: AgreementStatsView): string {
  const { judgments, pairs } = view.agreement;
  const scope = view.judgment ? ` of ${view.judgment}` : '';
  const byJudgment = judgments.length
    ? `<table><caption>Per Judgment</caption><thead><tr><th scope="col">Judgment</th><th scope="col" class="number">Cases with 2+ votes</th><th scope="col" class="number">Pairs of votes</th><th scope="col" class="number">Raw agreement</th><th scope="col" class="number">Cohen's kappa</th></tr></thead><tbody>
${judgments.map((row) => `<tr><th scope="row"><a href="${e(`${view.base}/stats?judgment=${encodeURIComponent(row.judgment)}`)}">${e(row.judgment)}</a></th><td class="number">${e(row.records)}</td><td class="number">${e(row.pairs)}</td><td class="number">${e(percent(row.rawAgreement))}</td><td class="number">${e(kappa(row.kappa, row))}</td></tr>`).join('\n')}
</tbody></table>`
    : `<p>No case${e(scope)} has two votes yet: agreement is measured on Decisions that require several reviewers (<code>review: { reviewers: 2 }</code>).</p>`;
  const byPair = pairs.length
    ? `<table><caption>Per reviewer pair</caption><thead><tr><th scope="col">Judgment</th><th scope="col">Reviewers</th><th scope="col" class="number">Cases both voted on</th><th scope="col" class="number">Raw agreement</th><th scope="col" class="number">Cohen's kappa</th></tr></thead><tbody>
${pairs.map((row) => `<tr><td>${e(row.judgment)}</td><th scope="row">${e(row.reviewers[0])} and ${e(row.reviewers[1])}</th><td class="number">${e(row.pairs)}</td><td class="number">${e(percent(row.rawAgreement))}</td><td class="number">${e(kappa(row.kappa, row))}</td></tr>`).join('\n')}
</tbody></table>`
    : '';
  const body = `<p class="note">From the reviewers' independent votes on cases whose Decision requires several (adjudications are not votes). Raw agreement is the share of pairs of votes on one case that agree; Cohen's kappa corrects it for the agreement chance alone would give: 1 is full agreement, 0 what chance gives, below 0 worse than chance. A figure resting on few pairs is uncertain: the count is beside it.</p>
${view.judgment ? `<p><a href="${e(`${view.base}/stats`)}">All Judgments</a></p>` : ''}
${byJudgment}
${byPair}`;
  return layout(`Reviewer agreement${scope}`, view.base, body, { reviewer: view.reviewer, style: STYLE });
}
