// The review desk's error pages: titled by what happened, the refused fields listed, a way on that is not the page
// that refused. Through the filter, as a thrown error reaches it.
import { ForbiddenException, type ArgumentsHost } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { UnknownRecord } from '../errors';
import { RequestValidationFailed } from './error-envelope';
import { ReviewPageExceptionFilter } from './review-page.filter';

/** The page the filter answers `exception` with, for a request to `url`. */
function pageFor(exception: unknown, url = '/judgment/desk/records/7'): { status: number; html: string } {
  let answer = { status: 0, html: '' };
  const adapter = {
    setHeader: () => undefined,
    reply: (_: unknown, html: string, status: number) => (answer = { status, html }),
  };
  const filter = new ReviewPageExceptionFilter({ httpAdapter: adapter } as unknown as HttpAdapterHost);
  const host = { switchToHttp: () => ({ getResponse: () => ({}), getRequest: () => ({ originalUrl: url }) }) };
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  filter.catch(exception, host as unknown as ArgumentsHost);
  return answer;
}

const title = (html: string) => /<title>(.*?) — Review desk<\/title>/.exec(html)?.[1];
const links = (html: string) => [...html.matchAll(/<main[\s\S]*?<\/main>/g)][0][0].match(/href="[^"]*"/g) ?? [];

afterEach(() => jest.restoreAllMocks());

it('titles an unexpected error as the server’s fault, without its detail', () => {
  const { status, html } = pageFor(new TypeError('cannot read properties of undefined (secret detail)'));
  expect(status).toBe(500);
  expect(title(html)).toBe('Something went wrong on the server');
  expect(html).not.toContain('The request was refused');
  expect(html).not.toContain('secret detail');
});

it('lists the refused fields of an address instead of pointing at details.fields', () => {
  const { status, html } = pageFor(new RequestValidationFailed({ after: ['after must be an integer number'] }));
  expect(status).toBe(400);
  expect(title(html)).toBe('The address or form was not understood');
  expect(html).toContain('<code>after</code>: after must be an integer number');
  expect(html).not.toContain('details.fields');
  expect(links(html)).toEqual(['href="/judgment/desk"']);
});

it('sends a refused reader home, not back to the desk that refused them', () => {
  const { status, html } = pageFor(new ForbiddenException('No.'), '/judgment/desk');
  expect(status).toBe(403);
  expect(title(html)).toBe('You may not open this page');
  expect(links(html)).toEqual(['href="/"']);
});

it('titles a missing record as not found', () => {
  const { status, html } = pageFor(new UnknownRecord(7));
  expect(status).toBe(404);
  expect(title(html)).toBe('Not found');
});
