import { e, layout } from './review-page.html';

/** An error as a page: the envelope's code and message, never a stack trace. */
export function errorPage(base: string, status: number, code: string, message: string): string {
  return layout(
    'The request was refused',
    base,
    `<div class="error" role="alert"><p><strong>${e(status)} ${e(code)}</strong></p><p>${e(message)}</p></div>
<p><a href="${e(base)}">Back to the queue</a></p>`,
  );
}
