import type { RecordSummary } from '../records/record.view';
import { e, layout, time } from './review-page.html';

/** What the queue page shows. */
export interface QueueView {
  readonly base: string;
  readonly records: readonly RecordSummary[];
  readonly judgment: string | undefined;
  readonly claim: 'unclaimed' | 'mine' | undefined;
  /** The cursor of this page (the last id of the previous one); undefined on the first page. */
  readonly after: number | undefined;
  readonly limit: number;
  /** The cursor of the next page, or null on the last one. */
  readonly nextAfter: number | null;
}

/** The queue: records awaiting Review with their deadline and claim, a filter form and keyset pagination. */
export function queuePage(view: QueueView): string {
  const link = (after: number | null) => {
    const query = new URLSearchParams();
    if (view.judgment) query.set('judgment', view.judgment);
    if (view.claim) query.set('claim', view.claim);
    query.set('limit', String(view.limit));
    if (after !== null) query.set('after', String(after));
    return `${view.base}?${query.toString()}`;
  };
  const option = (value: string, label: string) =>
    `<option value="${e(value)}"${(view.claim ?? '') === value ? ' selected' : ''}>${e(label)}</option>`;
  const rows = view.records
    .map(
      (record) => `<tr>
<td><a href="${e(`${view.base}/records/${record.id}`)}">Record #${e(record.id)}</a></td>
<td>${e(record.judgment)}</td>
<td>${record.subject ? `${e(record.subject.type)} #${e(record.subject.id)}` : 'none'}</td>
<td>${e(record.outcome ?? '')}</td>
<td>${time(record.reviewRequestedAt)}</td>
<td>${record.reviewDeadlineAt ? time(record.reviewDeadlineAt) : 'none'}</td>
<td>${record.claim ? `${e(record.claim.holder.type)} #${e(record.claim.holder.id)} until ${time(record.claim.expiresAt)}` : 'unclaimed'}</td>
</tr>`,
    )
    .join('\n');
  const table = view.records.length
    ? `<table><caption>Records awaiting Review, oldest first</caption><thead><tr><th scope="col">Record</th>
<th scope="col">Judgment</th><th scope="col">Subject</th><th scope="col">Automatic Outcome</th>
<th scope="col">In Review since</th><th scope="col">Deadline</th><th scope="col">Claim</th></tr></thead>
<tbody>${rows}</tbody></table>`
    : '<p>No record awaits Review with these filters.</p>';
  const pages = [
    view.after !== undefined ? `<a href="${e(link(null))}" rel="first">First page</a>` : '',
    view.nextAfter !== null ? `<a href="${e(link(view.nextAfter))}" rel="next">Next page</a>` : '',
  ].filter(Boolean);
  const body = `<form method="get" action="${e(view.base)}" aria-label="Filter the queue">
<label for="judgment">Judgment</label> <input id="judgment" name="judgment" value="${e(view.judgment ?? '')}">
<label for="claim">Claim</label> <select id="claim" name="claim">${option('', 'All')}${option('unclaimed', 'Unclaimed')}${option('mine', 'Claimed by me')}</select>
<button type="submit">Filter</button></form>
${table}
${pages.length ? `<nav aria-label="Pages"><p>${pages.join(' · ')}</p></nav>` : ''}`;
  return layout('Awaiting Review', view.base, body);
}
