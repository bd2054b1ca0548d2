import { e, layout } from './review-page.html';

/** An error as the desk shows it. */
export interface ErrorPageView {
  readonly base: string;
  readonly status: number;
  readonly code: string;
  readonly message: string;
  /** A refused query or form, field by field (the HTML page has no `details.fields` to point at). */
  readonly fields: Readonly<Record<string, readonly string[]>> | null;
}

/** The page's title: what happened, by status. */
function titleOf(status: number): string {
  if (status >= 500) return 'Something went wrong on the server';
  if (status === 401 || status === 403) return 'You may not open this page';
  if (status === 404) return 'Not found';
  if (status === 409) return 'The case changed';
  return 'The address or form was not understood';
}

/** Where to go from here: the queue, except when the desk itself is what was refused (it would lead back here). */
function wayOn(view: ErrorPageView): string {
  if (view.status === 401 || view.status === 403) {
    return `<p>Sign in with an account that may review, then open the review desk again. <a href="/">Go to the home page</a></p>`;
  }
  if (view.status >= 500) {
    return `<p>Nothing was changed by this request unless the page says so. Try again in a moment; if it keeps happening, tell whoever runs the desk (the details are in the server's log). <a href="${e(view.base)}">Back to the queue</a></p>`;
  }
  return `<p><a href="${e(view.base)}">Back to the queue</a></p>`;
}

/** An error as a page: titled by what happened, the envelope's code and message, never a stack trace. */
export function errorPage(view: ErrorPageView): string {
  const message = view.fields
    ? `<p>These parts of the request were not acceptable:</p><ul>${Object.entries(view.fields)
        .map(([field, problems]) => `<li><code>${e(field)}</code>: ${e(problems.join('; '))}</li>`)
        .join('')}</ul>`
    : `<p>${e(view.message)}</p>`;
  return layout(
    titleOf(view.status),
    view.base,
    `<div class="error" role="alert"><p><strong>${e(view.status)} ${e(view.code)}</strong></p>${message}</div>
${wayOn(view)}`,
  );
}
