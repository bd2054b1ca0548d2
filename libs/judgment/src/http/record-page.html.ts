import type { RecordDetail } from '../records/record.view';
import { REVIEW_CAUSE_WORDS, e, layout, time } from './review-page.html';

/** What the record page shows. */
export interface RecordPageView {
  readonly base: string;
  readonly record: RecordDetail;
  readonly csrf: string;
  /** Outcomes a reviewer may resolve with (the Decision's, without the Review ones); empty when unknown. */
  readonly resolutions: readonly string[];
  /** The Decision's declared thresholds, or null. */
  readonly thresholds: Readonly<Record<string, number>> | null;
}

/** A record: Subject, Evidence (user-written text inert and marked), answers as bars, Outcome, Provenance, forms. */
export function recordPage(view: RecordPageView): string {
  const { record } = view;
  const action = (name: string) => `${view.base}/records/${record.id}/${name}`;
  const csrf = `<input type="hidden" name="_csrf" value="${e(view.csrf)}">`;
  const awaiting = record.state === 'awaiting_review';
  // The holder's heartbeat and hand-back, while a claim is live (anyone else is refused with the conflict page).
  const holderForms = `<form class="inline" method="post" action="${e(action('renew'))}">${csrf}<button type="submit">Renew claim</button></form>
<form class="inline" method="post" action="${e(action('release'))}">${csrf}<button type="submit">Release</button></form>`;
  const forms = awaiting
    ? `<section aria-labelledby="act"><h2 id="act">Work this case</h2>
<form class="inline" method="post" action="${e(action('claim'))}">${csrf}<button type="submit">Claim</button></form>
${record.claim ? holderForms : ''}
<form class="inline" method="post" action="${e(action('resolve'))}">${csrf}
<label for="resolution">Resolution</label>
<select id="resolution" name="resolution">${view.resolutions.map((o) => `<option value="${e(o)}">${e(o)}</option>`).join('')}</select>
<button type="submit">Resolve</button></form></section>`
    : '';
  const review = record.review;
  const body = `<dl>
<dt>Judgment</dt><dd>${e(record.judgment)}</dd>
<dt>Subject</dt><dd>${record.subject ? `${e(record.subject.type)} #${e(record.subject.id)}` : 'none'}</dd>
<dt>State</dt><dd>${e(record.state.replace('_', ' '))}</dd>
<dt>Automatic Outcome</dt><dd>${e(record.outcome ?? 'none')}${record.decision ? ` (${e(record.decision.name)}${record.decision.version ? ` v${e(record.decision.version)}` : ''})` : ''}</dd>
<dt>In Review since</dt><dd>${time(record.reviewRequestedAt)}</dd>
${review ? `<dt>Why it is in Review</dt><dd><strong>${e(REVIEW_CAUSE_WORDS[review.cause])}</strong>${review.reason ? `: ${e(review.reason)}` : ''}</dd>` : ''}
<dt>Deadline</dt><dd>${record.reviewDeadlineAt ? time(record.reviewDeadlineAt) : 'none (waits for a person)'}</dd>
<dt>Claim</dt><dd>${record.claim ? `${e(record.claim.holder.type)} #${e(record.claim.holder.id)} until ${time(record.claim.expiresAt)}` : 'unclaimed'}</dd>
${review?.resolution ? `<dt>Resolution</dt><dd>${e(review.resolution)} by ${e(review.resolver?.type ?? '')} #${e(review.resolver?.id ?? '')} at ${time(review.resolvedAt)}</dd>` : ''}
</dl>
${forms}
<section aria-labelledby="evidence"><h2 id="evidence">Evidence</h2>
${record.evidence === null ? '<p>Evidence storage is off: only its fingerprint was kept.</p>' : evidence(record.evidence)}</section>
<section aria-labelledby="answers"><h2 id="answers">Answers</h2>${answers(record.answers, view.thresholds)}</section>
<section aria-labelledby="provenance"><h2 id="provenance">Provenance</h2>${provenance(record)}</section>`;
  return layout(`Record #${record.id}`, view.base, body);
}

/** Stored Evidence, nested; untrusted text (`{ untrusted: true, text }`) in a marked, inert block. */
function evidence(value: unknown, depth = 0): string {
  if (isUntrusted(value)) {
    return `<figure class="untrusted"><figcaption>User-written text (untrusted; shown as plain text)</figcaption><pre>${e(value.text)}</pre></figure>`;
  }
  if (Array.isArray(value)) {
    return `<ol>${value.map((item) => `<li>${evidence(item, depth + 1)}</li>`).join('')}</ol>`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '<span>(empty)</span>';
    return `<dl>${entries.map(([key, item]) => `<dt>${e(key)}</dt><dd>${evidence(item, depth + 1)}</dd>`).join('')}</dl>`;
  }
  return `<span>${e(value === null ? 'null' : String(value))}</span>`;
}

function isUntrusted(value: unknown): value is { untrusted: true; text: string } {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as { untrusted?: unknown }).untrusted === true &&
    typeof (value as { text?: unknown }).text === 'string'
  );
}

/** Each answer's probabilities as bars (with the Decision's thresholds marked on single probabilities). */
function answers(recorded: Record<string, unknown> | null, thresholds: RecordPageView['thresholds']): string {
  if (recorded === null) return '<p>No answers: the Engine failed on this attempt.</p>';
  const marks = thresholds ? Object.entries(thresholds).filter(([, value]) => value >= 0 && value <= 1) : [];
  const rows = Object.entries(recorded).map(([key, value]) => {
    if (typeof value === 'number') return bar(key, value, marks);
    const parts = Array.isArray(value)
      ? value.map((p, level) => [`level ${level + 1}`, p] as const)
      : Object.entries((value ?? {}) as Record<string, unknown>);
    return `<tr><th scope="row" colspan="2">${e(key)}</th></tr>${parts.map(([label, p]) => bar(`${key}: ${label}`, p, [])).join('')}`;
  });
  const legend = marks.length
    ? `<p>Thresholds of the Decision (red marks): ${marks.map(([name, value]) => `${e(name)} ${e(value.toFixed(2))}`).join(', ')}.</p>`
    : '<p>The Decision declares no thresholds.</p>';
  return `<table><caption>Probabilities the Engine answered</caption><tbody>${rows.join('')}</tbody></table>${legend}`;
}

function bar(label: string, p: unknown, marks: ReadonlyArray<readonly [string, number]>): string {
  if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) {
    return `<tr><th scope="row">${e(label)}</th><td>not a probability (${e(JSON.stringify(p))})</td></tr>`;
  }
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const ticks = marks
    .map(([name, value]) => `<span class="mark" style="left:${percent(value)}" title="${e(name)}"></span>`)
    .join('');
  return `<tr><th scope="row">${e(label)}</th><td><span class="bar" role="img" aria-label="${e(`${label}: probability ${p.toFixed(2)}`)}"><span class="fill" style="width:${percent(p)};display:block"></span>${ticks}</span> ${e(p.toFixed(2))}</td></tr>`;
}

function provenance(record: RecordDetail): string {
  if (!record.provenance) return '<p>No Provenance (the Engine gave no answer).</p>';
  const { engine, model, requestId, details } = record.provenance;
  return `<dl><dt>Engine</dt><dd>${e(engine)}</dd><dt>Model</dt><dd>${e(model ?? 'unknown')}</dd>
<dt>Request id</dt><dd>${e(requestId ?? 'none')}</dd><dt>Details</dt><dd><pre>${e(JSON.stringify(details, null, 2))}</pre></dd>
<dt>Cached from</dt><dd>${record.cachedFromId === null ? 'no (a fresh answer)' : `record #${e(record.cachedFromId)}`}</dd></dl>`;
}
