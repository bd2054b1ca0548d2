import type { ReviewCause } from '../assessment/awaiting-review';
import escapeHtml from 'escape-html';

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
<body><header><nav aria-label="Desk"><a href="${e(base)}">Review desk</a> · <a href="${e(`${base}/stats`)}">Reviewer agreement</a></nav>${reviewer}</header>
<main id="main"><h1>${e(title)}</h1>
${body}
</main></body></html>`;
}

export function time(iso: string | null | undefined): string {
  return iso ? `<time datetime="${e(iso)}">${e(iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time>` : 'none';
}
