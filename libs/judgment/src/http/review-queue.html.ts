import type { ReviewCause } from '../assessment/awaiting-review';
import type { ReviewSort } from '../records/record-queries.service';
import type { RecordSummary } from '../records/record.view';
import type { ClaimFilter } from './review.dto';
import { e, layout, time } from './review-page.html';

/** A deadline this close (or closer) is shown as due soon. */
export const DUE_SOON_MS = 60 * 60 * 1000;

/** Why a case is in Review, in a word or two (the record page says it in full). */
const CAUSE_WORDS: Record<ReviewCause, string> = {
  band: 'Uncertain',
  drift: 'Calibration drift',
  collapse: 'Signal collapse',
};

const CLAIM_WORDS: Record<ClaimFilter, string> = {
  unclaimed: 'Unclaimed',
  mine: 'Claimed by me',
  others: 'Claimed by others',
};

const SORT_WORDS: Record<ReviewSort, string> = {
  age: 'Oldest first',
  deadline: 'Nearest deadline first',
  confidence: 'Least confident first',
};

/** A row of the queue: the record as listed, with its one-line summary. */
export type QueueRow = RecordSummary & { readonly summary: string };

/** What the queue page shows. */
export interface QueueView {
  readonly base: string;
  readonly records: readonly QueueRow[];
  readonly judgment: string | undefined;
  readonly claim: ClaimFilter | undefined;
  readonly reason: ReviewCause | undefined;
  readonly sort: ReviewSort | undefined;
  /** How many records await Review, per Judgment (all of them, whatever the filters). */
  readonly counts: Readonly<Record<string, number>>;
  /** The requesting reviewer as claims record them, when known (their claims read "you"). */
  readonly reviewer: { readonly type: string; readonly id: string } | null;
  /** The page's time: urgency is measured from it. */
  readonly now: Date;
  /** The cursor of this page (the last id of the previous one); undefined on the first page. */
  readonly after: number | undefined;
  readonly limit: number;
  /** The cursor of the next page, or null on the last one. */
  readonly nextAfter: number | null;
}

/**
 * The queue, for triage: per case a one-line summary, why it is in Review, the deadline with its urgency, the
 * closeness of the call and the claim; sorts, filters (Judgment, reason, claim), counts per Judgment, keyset pages.
 */
export function queuePage(view: QueueView): string {
  const link = (changes: Record<string, string | number | null>) => {
    const params: Record<string, string | number | null | undefined> = {
      judgment: view.judgment,
      reason: view.reason,
      claim: view.claim,
      sort: view.sort,
      limit: view.limit,
      ...changes,
    };
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== null) query.set(name, String(value));
    }
    return `${view.base}?${query.toString()}`;
  };
  const select = (name: string, label: string, current: string | undefined, options: Record<string, string>) =>
    `<label for="${name}">${e(label)}</label> <select id="${name}" name="${name}">${Object.entries(options)
      .map(
        ([value, words]) =>
          `<option value="${e(value)}"${(current ?? '') === value ? ' selected' : ''}>${e(words)}</option>`,
      )
      .join('')}</select>`;
  const judgments = Object.keys(view.counts).sort();
  if (view.judgment !== undefined && !judgments.includes(view.judgment)) judgments.push(view.judgment);
  const total = Object.values(view.counts).reduce((sum, count) => sum + count, 0);
  const counts = judgments.length
    ? `<nav aria-label="Cases per Judgment"><p>${e(total)} awaiting Review: ${judgments
        .map((name) => {
          const here = view.judgment === name;
          return `<a href="${e(link({ judgment: name, after: null }))}"${here ? ' aria-current="page"' : ''}>${e(name)}</a> ${e(view.counts[name] ?? 0)}`;
        })
        .join(
          ' · ',
        )}${view.judgment !== undefined ? ` · <a href="${e(link({ judgment: null, after: null }))}">all Judgments</a>` : ''}</p></nav>`
    : '<p>No record awaits Review.</p>';
  const form = `<form method="get" action="${e(view.base)}" aria-label="Sort and filter the queue">
${select('judgment', 'Judgment', view.judgment, { '': 'All', ...Object.fromEntries(judgments.map((name) => [name, name])) })}
${select('reason', 'Why in Review', view.reason, { '': 'Any reason', ...CAUSE_WORDS })}
${select('claim', 'Claim', view.claim, { '': 'Anyone’s or nobody’s', ...CLAIM_WORDS })}
${select('sort', 'Order', view.sort, { '': SORT_WORDS.age, deadline: SORT_WORDS.deadline, confidence: SORT_WORDS.confidence })}
<input type="hidden" name="limit" value="${e(view.limit)}">
<button type="submit">Filter</button></form>`;
  const rows = view.records.map((record) => row(view, record)).join('\n');
  const table = view.records.length
    ? `<table><caption>Cases awaiting Review, ${e(SORT_WORDS[view.sort ?? 'age'].toLowerCase())}</caption><thead><tr>
<th scope="col">Case</th><th scope="col">Why in Review</th><th scope="col">Deadline</th>
<th scope="col">Closeness of the call</th><th scope="col">Claim</th><th scope="col">In Review since</th></tr></thead>
<tbody>${rows}</tbody></table>`
    : '<p>No case awaits Review with these filters.</p>';
  const pages = [
    view.after !== undefined ? `<a href="${e(link({ after: null }))}" rel="first">First page</a>` : '',
    view.nextAfter !== null ? `<a href="${e(link({ after: view.nextAfter }))}" rel="next">Next page</a>` : '',
  ].filter(Boolean);
  const body = `${counts}
${form}
${table}
${pages.length ? `<nav aria-label="Pages"><p>${pages.join(' · ')}</p></nav>` : ''}`;
  return layout('Awaiting Review', view.base, body, { reviewer: view.reviewer });
}

function row(view: QueueView, record: QueueRow): string {
  const cause = record.reviewCause ?? 'band';
  const claim = record.claim;
  const mine =
    claim !== null &&
    view.reviewer !== null &&
    claim.holder.type === view.reviewer.type &&
    claim.holder.id === view.reviewer.id;
  const claimCell = claim
    ? `${mine ? '<strong>You</strong>' : `${e(claim.holder.type)} #${e(claim.holder.id)}`}, until ${time(claim.expiresAt)}`
    : 'Unclaimed';
  return `<tr>
<td><a href="${e(`${view.base}/records/${record.id}`)}">${e(record.summary)}</a><br><small>Record #${e(record.id)} · ${e(record.judgment)} · automatic Outcome ${e(record.outcome ?? 'none')}</small></td>
<td>${e(CAUSE_WORDS[cause])}</td>
<td>${deadline(record.reviewDeadlineAt, view.now)}</td>
<td>${record.decisionMargin === null ? 'no threshold compared' : `${e(record.decisionMargin.toFixed(2))} from a threshold`}</td>
<td>${claimCell}</td>
<td>${time(record.reviewRequestedAt)}<br><small>${e(ago(record.reviewRequestedAt, view.now))}</small></td>
</tr>`;
}

/** The deadline with its urgency: overdue (red), due soon (amber), else the time left. */
function deadline(iso: string | null, now: Date): string {
  if (iso === null) return 'None (waits for a person)';
  const left = new Date(iso).getTime() - now.getTime();
  if (left <= 0) {
    return `<strong class="urgency" style="background:#b00020;color:#fff;padding:0 .3rem">Overdue</strong> by ${e(span(-left))}<br>${time(iso)}`;
  }
  if (left <= DUE_SOON_MS) {
    return `<strong class="urgency" style="background:#ffd58a;color:#1a1a1a;padding:0 .3rem">Due soon</strong> in ${e(span(left))}<br>${time(iso)}`;
  }
  return `in ${e(span(left))}<br>${time(iso)}`;
}

function ago(iso: string | null, now: Date): string {
  if (iso === null) return '';
  const ms = now.getTime() - new Date(iso).getTime();
  return ms < 60_000 ? 'just now' : `${span(ms)} ago`;
}

/** A duration in words: `4 min`, `3 h`, `2 days`. */
function span(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}
