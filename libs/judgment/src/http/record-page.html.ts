import type { TraceComparison } from '../decision/decision-trace';
import { shownNumber, signedNumber, traceSteps } from '../decision/trace-words';
import type { QuestionView, RecordQuestions } from '../records/record-questions';
import type { RecordDetail } from '../records/record.view';
import type { VotesView } from '../review/review-votes.service';
import { e, layout, time } from './review-page.html';

/** What the record page's controls offer: the reviewer's own next steps, or why there are none. */
export type RecordControls =
  | { readonly kind: 'closed' }
  | { readonly kind: 'no-reviewer' }
  | { readonly kind: 'unclaimed' }
  | { readonly kind: 'mine'; readonly expiresAt: string }
  | { readonly kind: 'theirs'; readonly holder: { type: string; id: string }; readonly expiresAt: string }
  /** N-of-M: this reviewer voted; `waiting` more votes are due. */
  | { readonly kind: 'voted'; readonly outcome: string; readonly waiting: number }
  /** N-of-M: the votes disagree and this reviewer may not adjudicate. */
  | { readonly kind: 'awaits-adjudication' };

/** A message at the top of the page: what the last action did (`done`), or why it was refused (`problem`). */
export interface RecordNotice {
  readonly kind: 'done' | 'problem';
  readonly text: string;
  /** Where to go next (after a Resolution: the queue's next unclaimed case). */
  readonly link?: { readonly href: string; readonly label: string };
}

/** What the record page shows. */
export interface RecordPageView {
  readonly base: string;
  readonly record: RecordDetail;
  readonly csrf: string;
  /** Outcomes a reviewer may resolve with (the Decision's, without the Review ones); empty when unknown. */
  readonly resolutions: readonly string[];
  /** The thresholds the Decision decided with (declared), or null. */
  readonly thresholds: Readonly<Record<string, number>> | null;
  /** The Questions of the record's Judgment, or null when they cannot be read. */
  readonly questions: RecordQuestions | null;
  /** The signed-in reviewer, as recorded (`agent #alice`), or null. */
  readonly reviewer: { readonly type: string; readonly id: string } | null;
  readonly controls: RecordControls;
  /** N-of-M votes as this reviewer may see them (blind until they vote), or null for a single-Resolution Decision. */
  readonly votes?: VotesView | null;
  readonly notice: RecordNotice | null;
  /** The version of the record the page shows (its last update, ms), sent back with a Resolution. */
  readonly seen: number;
  /** Now, for "in 12 min". */
  readonly now: Date;
}

/** The keyboard path's help (shown by the desk's script on `?`; the page works without it). */
function keysHelp(view: RecordPageView): string {
  const outcomes = view.resolutions.map((o, i) => `<kbd>${i + 1}</kbd> ${e(o)}`).join(' · ');
  return `<p id="keys-hint" class="meta" hidden>Keyboard: press <kbd>?</kbd> for the shortcuts.</p>
<section id="keys-help" class="keys-help" aria-labelledby="keys-title" hidden><h2 id="keys-title">Keyboard shortcuts</h2>
<dl><dt><kbd>c</kbd></dt><dd>Claim this case</dd>
<dt><kbd>1</kbd>–<kbd>9</kbd></dt><dd>Pick an Outcome${outcomes ? ` (${outcomes})` : ''}, then <kbd>Enter</kbd> to resolve or <kbd>Esc</kbd> to cancel; the next unclaimed case opens</dd>
<dt><kbd>u</kbd></dt><dd>Undo a Resolution within 4 seconds of <kbd>Enter</kbd> (it is sent only then)</dd>
<dt><kbd>r</kbd></dt><dd>Renew your claim</dd>
<dt><kbd>j</kbd> or <kbd>→</kbd></dt><dd>Next case in the queue</dd>
<dt><kbd>k</kbd> or <kbd>←</kbd></dt><dd>Back to the case before</dd>
<dt><kbd>?</kbd></dt><dd>Show or hide this help</dd></dl></section>`;
}

/** The record page's own styles, beside the desk's. */
const STYLE = `
.why{border-left:6px solid #a15c00;background:#fff3df;padding:.5rem 1rem;margin:1rem 0}
.why.drift,.why.collapse{border-color:#b00020;background:#fdecee}
.notice{padding:.5rem 1rem;margin:1rem 0;border-left:6px solid #1e6b34;background:#e8f5ec}
.notice.problem{border-color:#b00020;background:#fdecee}
.controls,.keys-help{border:1px solid #bbb;background:#fff;padding:.75rem 1rem;margin:1rem 0}
.controls p{margin:.25rem 0 .5rem}
.question{border-top:1px solid #ddd;padding:.5rem 0}
.question h3{margin:.25rem 0;font-size:1.05rem}
.meta{color:#555;font-size:.9rem;margin:0}
.num{font-variant-numeric:tabular-nums}
.fired{font-weight:600}
.thresholds{margin:.25rem 0;padding-left:1.2rem}
.scale{position:relative;background:#e4e4e4;height:1rem;width:20rem;max-width:100%;display:inline-block;vertical-align:middle}
.scale .dot{position:absolute;top:-.2rem;width:.6rem;height:1.4rem;margin-left:-.3rem;background:#2c5d8f}
.scale .mark{position:absolute;top:-.25rem;bottom:-.25rem;width:2px;background:#b00020}
.warn{color:#6b3d00}
details summary{cursor:pointer;font-weight:600}
select{font:inherit;padding:.2rem}
kbd{border:1px solid #999;border-radius:3px;padding:0 .3rem;background:#fff;font:inherit;font-size:.9em}
select:invalid{color:#555}
.question th[scope=row]{width:16rem}`;

/**
 * A record as a reviewer works it: why it is in Review, what to do now (the controls by state), the Evidence
 * (user-written text inert and marked), each Question with its text and answer (thresholds on the answer they apply
 * to), how the Decision reached its Outcome, and the Provenance folded away. Numbers rounded for display.
 */
export function recordPage(view: RecordPageView): string {
  const { record } = view;
  const review = record.review;
  const title = `Record #${record.id}`;
  const body = `${notice(view.notice)}
<div id="case" data-record="${e(record.id)}" data-next="${e(`${view.base}/next?after=${record.id}`)}"></div>
${keysHelp(view)}
<p class="meta">${e(record.judgment)}${record.subject ? ` · ${e(record.subject.type)} #${e(record.subject.id)}` : ''} · ${e(view.votes?.needsAdjudication ? 'awaiting adjudication' : stateWords(record))}</p>
${review ? whyInReview(record) : ''}
${votesSection(view.votes ?? null)}
${controls(view)}
<section aria-labelledby="facts"><h2 id="facts">The case</h2><dl>
<dt>Automatic Outcome</dt><dd>${e(record.outcome ?? 'none')}${record.decision ? ` (Decision ${e(record.decision.name)}${record.decision.version ? ` v${e(record.decision.version)}` : ''})` : ''}</dd>
<dt>In Review since</dt><dd>${time(record.reviewRequestedAt)}</dd>
<dt>Deadline</dt><dd>${record.reviewDeadlineAt ? `${time(record.reviewDeadlineAt)} ${e(relative(record.reviewDeadlineAt, view.now))}` : 'none (waits for a person)'}</dd>
${review?.resolution ? `<dt>Resolution</dt><dd>${resolutionWords(review)}</dd>` : ''}
</dl></section>
<section aria-labelledby="evidence"><h2 id="evidence">Evidence</h2>
${record.evidence === null ? '<p>Evidence storage is off: only its fingerprint was kept.</p>' : evidence(record.evidence)}</section>
<section aria-labelledby="answers"><h2 id="answers">Questions and answers</h2>${answers(view)}</section>
<section aria-labelledby="trace"><h2 id="trace">How the automatic Outcome was reached</h2>${trace(record)}</section>
<section aria-labelledby="provenance-title"><h2 id="provenance-title">Provenance</h2>${provenance(record)}</section>`;
  return layout(title, view.base, body, {
    reviewer: view.reviewer,
    style: STYLE,
    script: `${view.base}/desk-keys.js`,
  });
}

function notice(value: RecordNotice | null): string {
  if (value === null) return '';
  const link = value.link ? ` <a href="${e(value.link.href)}">${e(value.link.label)}</a>` : '';
  return value.kind === 'done'
    ? `<div class="notice" role="status"><p>${e(value.text)}${link}</p></div>`
    : `<div class="notice problem" role="alert"><p>${e(value.text)}</p></div>`;
}

function stateWords(record: RecordDetail): string {
  switch (record.state) {
    case 'awaiting_review':
      return 'awaiting Review';
    case 'resolved':
      return 'resolved';
    default:
      return record.state;
  }
}

/** Why the case is in Review, first thing on the page: a drifted case must not read as an obviously fine Outcome. */
function whyInReview(record: RecordDetail): string {
  const review = record.review!;
  const outcome = e(record.outcome ?? 'none');
  const headline =
    review.cause === 'band'
      ? `Uncertain: the Decision gave <strong>${outcome}</strong>, one of its Review Outcomes.`
      : review.cause === 'drift'
        ? `Calibration drift: the automatic Outcome <strong>${outcome}</strong> was not trusted.`
        : `Signal collapse: the automatic Outcome <strong>${outcome}</strong> was not trusted.`;
  return `<section class="why ${e(review.cause)}" aria-labelledby="why"><h2 id="why">${record.state === 'resolved' ? 'Why this case went to Review' : 'Why this case is in Review'}</h2>
<p>${headline}</p>${review.reason ? `<p>${e(review.reason)}</p>` : ''}</section>`;
}

function resolutionWords(review: NonNullable<RecordDetail['review']>): string {
  const by = review.resolver ? ` by ${e(review.resolver.type)} #${e(review.resolver.id)}` : '';
  const spent = review.timeSpentSeconds === null ? '' : `, after ${e(duration(review.timeSpentSeconds))} on the case`;
  return `<strong>${e(review.resolution)}</strong>${by} at ${time(review.resolvedAt)}${spent}`;
}

/** The N-of-M votes: the count always; who voted what only once this reviewer may see it (blind review). */
function votesSection(votes: VotesView | null): string {
  if (votes === null) return '';
  const count = `<p>${e(votes.cast)} of ${e(votes.required)} independent votes cast.</p>`;
  const list =
    votes.votes === null
      ? '<p>The votes are hidden until you cast yours, so that nobody is swayed by another reviewer (blind review).</p>'
      : votes.votes.length === 0
        ? ''
        : `<ul class="votes">${votes.votes.map((vote) => `<li>${e(vote.reviewer.type)} #${e(vote.reviewer.id)}: <strong>${e(vote.outcome)}</strong> at ${time(vote.createdAt.toISOString())}</li>`).join('')}</ul>`;
  const adjudication = votes.needsAdjudication
    ? '<p class="warn"><strong>The votes disagree:</strong> the case awaits adjudication by a reviewer allowed to settle it.</p>'
    : '';
  return `<section aria-labelledby="votes-title"><h2 id="votes-title">Reviewers' votes</h2>${count}${adjudication}${list}</section>`;
}

/** Only what applies to this reviewer now. */
function controls(view: RecordPageView): string {
  const { record, controls: state } = view;
  const action = (name: string) => `${view.base}/records/${record.id}/${name}`;
  const csrf = `<input type="hidden" name="_csrf" value="${e(view.csrf)}">`;
  const button = (name: string, label: string) =>
    `<form class="inline" method="post" action="${e(action(name))}" data-action="${e(name)}">${csrf}<button type="submit">${e(label)}</button></form>`;
  const section = (content: string) =>
    `<section class="controls" aria-labelledby="act"><h2 id="act">Work this case</h2>${content}</section>`;
  switch (state.kind) {
    case 'closed':
      return '';
    case 'voted':
      return section(
        `<p>You voted <strong>${e(state.outcome)}</strong>. ${state.waiting > 0 ? `Waiting for ${e(state.waiting)} more ${state.waiting === 1 ? 'vote' : 'votes'}` : 'The votes are in'}; a vote is final.</p>`,
      );
    case 'awaits-adjudication':
      return section(
        '<p>The votes disagree, so the case takes no more votes: it awaits adjudication by a reviewer the resolution policy allows to settle it. You can read it.</p>',
      );
    case 'no-reviewer':
      return section('<p>You are not signed in as a reviewer, so you can read this case but not work it.</p>');
    case 'unclaimed':
      return section(
        `<p>Nobody holds this case. Claim it to resolve it: your claim keeps others off it for 15 minutes, and you can renew it.</p>${button('claim', 'Claim')}`,
      );
    case 'theirs':
      return section(
        `<p>Claimed by <strong>${e(state.holder.type)} #${e(state.holder.id)}</strong> until ${time(state.expiresAt)} ${e(relative(state.expiresAt, view.now))}. You can read it; it is theirs to resolve until then.</p>`,
      );
    case 'mine': {
      const options = view.resolutions.map((o) => `<option value="${e(o)}">${e(o)}</option>`).join('');
      const resolve = view.resolutions.length
        ? `<form method="post" action="${e(action('resolve'))}" data-kind="${e(resolveWord(view).kind)}">${csrf}<input type="hidden" name="seen" value="${e(view.seen)}"><input type="hidden" name="advance" value="">
<label for="resolution">${e(resolveWord(view).label)}</label>
<select id="resolution" name="resolution" required><option value="">Choose an Outcome…</option>${options}</select>
<button type="submit">${e(resolveWord(view).button)}</button></form>
<p id="keys-confirm" class="notice" aria-live="assertive" hidden></p>`
        : `<p class="warn">The Decision ${e(record.decision?.name ?? '')} is not registered in this app, so its Outcomes are unknown and the case cannot be resolved here.</p>`;
      return section(
        `<p>You hold this case until ${time(state.expiresAt)} ${e(relative(state.expiresAt, view.now))}.</p>
${resolve}
<p>${button('renew', 'Renew claim')} ${button('release', 'Release')}</p>`,
      );
    }
  }
}

/** What resolving is for this case: a Resolution, one vote of several, or the adjudication of disagreeing votes. */
function resolveWord(view: RecordPageView): { label: string; button: string; kind: 'resolve' | 'vote' | 'adjudicate' } {
  if (!view.votes) return { label: 'Resolution', button: 'Resolve', kind: 'resolve' };
  if (view.votes.needsAdjudication) return { label: 'Adjudication', button: 'Adjudicate', kind: 'adjudicate' };
  return { label: 'Your vote', button: 'Cast vote', kind: 'vote' };
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
  return `<span>${e(value === null ? 'null' : typeof value === 'number' ? shownNumber(value) : String(value))}</span>`;
}

function isUntrusted(value: unknown): value is { untrusted: true; text: string } {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as { untrusted?: unknown }).untrusted === true &&
    typeof (value as { text?: unknown }).text === 'string'
  );
}

/** A threshold as placed on an answer: its name (null for a number written in decide()), value, and test. */
interface PlacedThreshold {
  readonly name: string | null;
  readonly value: number;
  readonly op: TraceComparison['op'];
}

/** Where each threshold applies: the answers the trace compared it with (`key`, `key.label`). */
function placeThresholds(record: RecordDetail): Map<string, PlacedThreshold[]> {
  const placed = new Map<string, PlacedThreshold[]>();
  for (const comparison of record.trace?.comparisons ?? []) {
    if (comparison.threshold === null) continue;
    const list = placed.get(comparison.key) ?? [];
    const same = (t: PlacedThreshold) => t.value === comparison.threshold && t.name === comparison.thresholdName;
    if (!list.some(same)) list.push({ name: comparison.thresholdName, value: comparison.threshold, op: comparison.op });
    placed.set(comparison.key, list);
  }
  return placed;
}

/** Each Question with its text and its answer; thresholds on the answer they apply to. */
function answers(view: RecordPageView): string {
  const { record } = view;
  if (record.answers === null) return '<p>No answers: the Engine failed on this attempt.</p>';
  const placed = placeThresholds(record);
  const questions = view.questions?.questions ?? {};
  const stale =
    view.questions === null
      ? '<p class="warn">The Questions of this Judgment cannot be read in this app (not registered here), so they are shown by key.</p>'
      : view.questions.current
        ? ''
        : '<p class="warn">The Questions of this Judgment changed since this case was assessed: the texts below are today\'s, the answers were given to the earlier ones.</p>';
  const blocks = Object.entries(record.answers).map(([key, value]) =>
    questionBlock(key, value, questions[key] ?? null, placed),
  );
  const usedNames = new Set([...placed.values()].flat().map((t) => t.name));
  const unplaced = Object.entries(view.thresholds ?? {}).filter(([name]) => !usedNames.has(name));
  const declared = view.thresholds
    ? unplaced.length
      ? `<p>Thresholds the Decision declares but did not compare on this case: ${unplaced.map(([name, value]) => `${e(name)} <span class="num">${e(shownNumber(value))}</span>`).join(', ')}.</p>`
      : ''
    : '<p>The Decision declares no thresholds.</p>';
  return `${stale}${blocks.join('')}${declared}`;
}

function questionBlock(
  key: string,
  value: unknown,
  question: QuestionView | null,
  placed: Map<string, PlacedThreshold[]>,
): string {
  const heading = question?.text ?? (question?.kind === 'likelihood_set' ? `Each of: ${key}` : key);
  const kind = question ? KIND_WORDS[question.kind] : 'Question';
  const head = `<div class="question"><h3>${e(heading)}</h3><p class="meta">${e(kind)} · key <code>${e(key)}</code></p>`;
  if (typeof value === 'number') {
    const meaning = question?.meaning
      ? `<p class="meta">Yes: ${e(question.meaning.true)}. No: ${e(question.meaning.false)}.</p>`
      : '';
    return `${head}${meaning}<table><tbody>${bar('Probability of yes', `${key}: probability of yes`, value, placed.get(key) ?? [])}</tbody></table>${thresholdList(placed.get(key) ?? [], value)}</div>`;
  }
  if (Array.isArray(value)) return `${head}${rating(key, value, question, placed.get(key) ?? [])}</div>`;
  const entries = Object.entries((value ?? {}) as Record<string, unknown>);
  const texts = new Map((question?.options ?? []).map((option) => [option.name, option.text]));
  const top = entries.reduce<[string, number] | null>(
    (best, [label, p]) => (typeof p === 'number' && (best === null || p > best[1]) ? [label, p] : best),
    null,
  );
  const rows = entries
    .map(([label, p]) => {
      const text = texts.get(label);
      const marks = placed.get(`${key}.${label}`) ?? [];
      const name = `${label}${text ? ` — ${text}` : ''}${question?.kind === 'classification' && top?.[0] === label ? ' (most probable)' : ''}`;
      return (
        bar(name, `${key}: ${label}`, p, marks) +
        (marks.length ? `<tr><td></td><td>${thresholdList(marks, p)}</td></tr>` : '')
      );
    })
    .join('');
  return `${head}<table><tbody>${rows}</tbody></table></div>`;
}

const KIND_WORDS: Record<QuestionView['kind'], string> = {
  likelihood: 'Likelihood',
  classification: 'Classification',
  rating: 'Rating',
  likelihood_set: 'Likelihood Set',
};

/** A Rating: each level numbered from 0 as the API and `explain` count, its probability, and the expected level. */
function rating(key: string, value: unknown[], question: QuestionView | null, marks: PlacedThreshold[]): string {
  const levels = question?.options.map((option) => option.name) ?? [];
  const rows = value
    .map((p, level) => bar(`${level} · ${levels[level] ?? `level ${level}`}`, `${key}: level ${level}`, p, []))
    .join('');
  const valid = value.every((p) => typeof p === 'number' && Number.isFinite(p));
  if (!valid) return `<table><tbody>${rows}</tbody></table>`;
  const expected = (value as number[]).reduce((sum, p, level) => sum + level * p, 0);
  const top = Math.max(1, value.length - 1);
  const at = (x: number) => `${Math.min(100, Math.max(0, (x / top) * 100)).toFixed(1)}%`;
  const ticks = marks
    .map((t) => `<span class="mark" style="left:${at(t.value)}" title="${e(thresholdName(t))}"></span>`)
    .join('');
  const scale = `<span class="scale" role="img" aria-label="${e(`expected level ${shownNumber(expected)} on a scale from 0 to ${top}`)}"><span class="dot" style="left:${at(expected)}"></span>${ticks}</span>`;
  return `<table><caption class="meta">Levels numbered from 0, as the API counts them</caption><tbody>${rows}
<tr><th scope="row">Expected level (0–${top})</th><td>${scale} <span class="num">${e(shownNumber(expected))}</span></td></tr></tbody></table>${thresholdList(marks, expected)}`;
}

function thresholdName(threshold: PlacedThreshold): string {
  return threshold.name ?? 'a number in decide()';
}

/** The thresholds on an answer in words: `reject ≥ 0.65: not reached (-0.2)`. */
function thresholdList(marks: readonly PlacedThreshold[], value: unknown): string {
  if (marks.length === 0) return '';
  const items = marks.map((t) => {
    const margin = typeof value === 'number' ? signedNumber(Math.round((value - t.value) * 1e6) / 1e6) : '';
    const side = typeof value === 'number' ? (value >= t.value ? 'at or above' : 'below') : '';
    return `<li>${e(thresholdName(t))} <span class="num">${e(shownNumber(t.value))}</span>: the answer is ${e(side)} it (margin <span class="num">${e(margin)}</span>)</li>`;
  });
  return `<ul class="thresholds" aria-label="Thresholds on this answer">${items.join('')}</ul>`;
}

function bar(label: string, name: string, p: unknown, marks: readonly PlacedThreshold[]): string {
  if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) {
    return `<tr><th scope="row">${e(label)}</th><td>not a probability (${e(JSON.stringify(p))})</td></tr>`;
  }
  const percent = (value: number) => `${(Math.min(1, Math.max(0, value)) * 100).toFixed(1)}%`;
  const ticks = marks
    .map((t) => `<span class="mark" style="left:${percent(t.value)}" title="${e(thresholdName(t))}"></span>`)
    .join('');
  return `<tr><th scope="row">${e(label)}</th><td><span class="bar" role="img" aria-label="${e(`${name}: probability ${shownNumber(p)}`)}"><span class="fill" style="width:${percent(p)};display:block"></span>${ticks}</span> <span class="num">${e(shownNumber(p))}</span></td></tr>`;
}

/** The decision trace as `judgment explain` prints it: the rule that fired, then each comparison with its margin. */
function trace(record: RecordDetail): string {
  if (record.decision === null) return '<p>No Decision was applied yet.</p>';
  const decided = `<p>Decision ${e(record.decision.name)}${record.decision.version ? ` v${e(record.decision.version)}` : ''} decided <strong>${e(record.outcome ?? 'none')}</strong>.</p>`;
  if (record.trace === null)
    return `${decided}<p>No decision trace was recorded (decided before traces were kept).</p>`;
  const steps = traceSteps(record.trace);
  const list = steps.length
    ? `<ol>${steps.map((step) => `<li${step.fired ? ' class="fired"' : ''}>${e(step.text)}${step.fired ? ' — fired' : ''}</li>`).join('')}</ol>`
    : '<p>No threshold was compared through the answers.</p>';
  return `${decided}<p>Rule that fired: <strong>${e(record.trace.rule.text)}</strong></p><p>Comparisons, in order:</p>${list}`;
}

function provenance(record: RecordDetail): string {
  if (!record.provenance) return '<p>No Provenance (the Engine gave no answer).</p>';
  const { engine, model, requestId, details } = record.provenance;
  const shown = JSON.stringify(
    details,
    (_key, value: unknown) =>
      typeof value === 'number' && !Number.isInteger(value) ? Number(shownNumber(value)) : value,
    2,
  );
  return `<details><summary>Engine ${e(engine)}, model ${e(model ?? 'unknown')} (details)</summary>
<dl><dt>Engine</dt><dd>${e(engine)}</dd><dt>Model</dt><dd>${e(model ?? 'unknown')}</dd>
<dt>Request id</dt><dd>${e(requestId ?? 'none')}</dd><dt>Details (numbers rounded)</dt><dd><pre>${e(shown)}</pre></dd>
<dt>Cached from</dt><dd>${record.cachedFromId === null ? 'no (a fresh answer)' : `record #${e(record.cachedFromId)}`}</dd></dl></details>`;
}

/** `(in 14 min)`, `(2 h ago)`. */
function relative(iso: string, now: Date): string {
  const seconds = Math.round((Date.parse(iso) - now.getTime()) / 1000);
  const words = duration(Math.abs(seconds));
  return seconds >= 0 ? `(in ${words})` : `(${words} ago)`;
}

/** 45 s, 14 min, 3 h 5 min, 2 d 4 h. */
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `${Math.floor(hours / 24)} d${hours % 24 ? ` ${hours % 24} h` : ''}`;
}
