// The review page's CSRF tokens: bound to the reviewer and to the browser's cookie, and good for a limited time.
import type { AssessmentRecords } from '../records/assessment-records.service';
import { CSRF_TOKEN_TTL_MS, CsrfTokens } from './csrf';
import type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';

const records = { reviewerReference: (reviewer: { id: string }) => ({ type: 'user', id: reviewer.id }) };
const options: JudgmentHttpOptions = {
  reviewerFrom: (request) => ({ id: String(request.headers['x-user']) }),
} as JudgmentHttpOptions;
const tokens = new CsrfTokens(options, records as unknown as AssessmentRecords);

const request = (user: string, cookie?: string) =>
  ({ headers: { 'x-user': user, ...(cookie ? { cookie: `judgment_csrf=${cookie}` } : {}) } }) as JudgmentHttpRequest;

afterEach(() => jest.useRealTimers());

it('accepts its own token for the reviewer it was made for, with the same cookie', async () => {
  const { token, setCookie } = await tokens.forPage(request('alice'));
  expect(setCookie).toContain(`judgment_csrf=${token};`);
  expect(await tokens.accepts(request('alice', token), token)).toBe(true);
  expect(await tokens.accepts(request('bob', token), token)).toBe(false);
});

it('refuses a token older than its lifetime, and a page opened then gets a new one', async () => {
  jest.useFakeTimers({ now: new Date('2026-12-02T08:00:00Z') });
  const { token } = await tokens.forPage(request('alice'));
  jest.setSystemTime(Date.now() + CSRF_TOKEN_TTL_MS - 1000);
  expect(await tokens.accepts(request('alice', token), token)).toBe(true);
  const renewed = await tokens.forPage(request('alice', token));
  expect(renewed.token).not.toBe(token);
  jest.setSystemTime(Date.now() + 2000);
  expect(await tokens.accepts(request('alice', token), token)).toBe(false);
  expect(await tokens.accepts(request('alice', renewed.token), renewed.token)).toBe(true);
});

it('keeps a page token while more than half its lifetime is left', async () => {
  jest.useFakeTimers({ now: new Date('2026-12-02T08:00:00Z') });
  const { token } = await tokens.forPage(request('alice'));
  jest.setSystemTime(Date.now() + CSRF_TOKEN_TTL_MS / 2 - 1000);
  expect((await tokens.forPage(request('alice', token))).setCookie).toBeNull();
});

it('refuses a token whose time was changed: the time is signed', async () => {
  const { token } = await tokens.forPage(request('alice'));
  const [nonce, issued, signature] = token.split('.');
  const forged = `${nonce}.${Number(issued) + 3600}.${signature}`;
  expect(await tokens.accepts(request('alice', forged), forged)).toBe(false);
});
