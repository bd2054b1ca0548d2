import type { ReviewCause } from '../assessment/awaiting-review';
import escapeHtml from 'escape-html';
import type { RecordSummary } from '../records/record.view';

/** Escapes text for HTML element content and quoted attribute values (& < > " '). */
export const e = (value: unknown): string => escapeHtml(String(value));

/** The page's styles: inline (no build step), allowed by the page's Content-Security-Policy. */
const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fafafa}
header,main{max-width:64rem;margin:0 auto;padding:1rem}
header{border-bottom:1px solid #ccc;display:flex;justify-content:space-between;align-items:baseline;gap:1rem}
header p{margin:0}
a{color:#0b4f9c}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem;border-bottom:1px solid #ddd;vertical-align:top}
.untrusted{border:2px dashed #a15c00;background:#fff7e6;padding:.5rem;margin:.25rem 0}
.untrusted figcaption{font-weight:600;color:#6b3d00}
.untrusted pre{white-space:pre-wrap;word-break:break-word;margin:.25rem 0;font:inherit}
.bar{position:relative;background:#e4e4e4;height:1rem;width:20rem;max-width:100%;display:inline-block;vertical-align:middle}
.bar .fill{background:#2c5d8f;height:100%}
.bar .mark{position:absolute;top:-.25rem;bottom:-.25rem;width:2px;background:#b00020}
.error{border:2px solid #b00020;background:#fdecee;padding:1rem}
form.inline{display:inline-block;margin-right:1rem}
button{font:inherit;padding:.3rem .8rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dt{font-weight:600}
dd{margin:0}`;

/** Security headers of every page: no inline script (only the desk's own static script), forms post only here, no framing. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/** A Review cause as a reviewer reads it. */
export const REVIEW_CAUSE_WORDS: Record<ReviewCause, string> = {
  band: 'Uncertain: a Review Outcome',
  drift: 'Calibration drift: the automatic Outcome was not trusted',
  collapse: 'Signal collapse: the automatic Outcome was not trusted',
};

/** What a page adds to the desk's layout: the signed-in reviewer shown in the header, and styles of its own. */
export interface LayoutOptions {
  readonly reviewer?: { readonly type: string; readonly id: string } | null;
  readonly style?: string;
  /** A static script of the desk to load (same origin; the policy allows no inline script). */
  readonly script?: string;
}

export function layout(title: string, base: string, body: string, options: LayoutOptions = {}): string {
  const reviewer = options.reviewer
    ? `<p class="signed-in">Signed in as <strong>${e(options.reviewer.type)} #${e(options.reviewer.id)}</strong></p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)} — Review desk</title><style>${STYLE}${options.style ?? ''}</style>${options.script ? `<script src="${e(options.script)}" defer></script>` : ''}</head>
<body><header><a href="${e(base)}">Review desk</a>${reviewer}</header>
<main id="main"><h1>${e(title)}</h1>
${body}
</main></body></html>`;
}

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

export function time(iso: string | null | undefined): string {
  return iso ? `<time datetime="${e(iso)}">${e(iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time>` : 'none';
}
