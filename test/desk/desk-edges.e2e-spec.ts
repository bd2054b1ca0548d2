// The review desk at its edges (issue 31, points 1, 2, 3 and 5), over real HTTP against the support desk on
// PostgreSQL: record ids past the id column on the page and every JSON route, reviewer ids the columns cannot hold,
// CSRF tokens bound to the reviewer and never adopted from a planted cookie, the Origin compared by scheme, host and
// port, and unknown body fields (prototype names included) refused alike.
import type { INestApplication } from '@nestjs/common';
import { AssessmentRecords as AssessmentRecordsToken } from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { RefundsService } from '../../apps/support-desk/src/refunds/refunds.service';
import { startApi } from '../http/support';
import { databaseUrl, recreateDatabase } from '../support/postgres';

const DATABASE = 'judgment_desk_edges';
const KEY = 'desk-edges-key';
/** An agent whose id is longer than the reviewer columns (varchar 255) hold. */
const LONG_AGENT = 'a'.repeat(300);
const BEYOND_ID_COLUMN = '2147483648';

let sim: JevSimulator;
let api: INestApplication;
let base: string;
let recordId: number;

beforeAll(async () => {
  await recreateDatabase(DATABASE);
  sim = new JevSimulator({ apiKey: KEY });
  const url = await sim.start(0);
  api = await startApi({
    DATABASE_URL: databaseUrl(DATABASE),
    TYPESAFE_API_KEY: KEY,
    TYPESAFE_BASE_URL: url,
    JUDGMENT_JEV_RETRIES: '0',
    JUDGMENT_LOG: 'false',
    SUPPORT_DESK_AGENTS: `alice,bob,${LONG_AGENT}`,
  });
  await api.listen(0, '127.0.0.1');
  base = (await api.getUrl()).replace('[::1]', '127.0.0.1');
  const refunds = api.get(RefundsService);
  const refund = await refunds.create({
    item: 'Jacket',
    amountEur: 80,
    explanation: 'The zip broke on the first day. [[abusive=0.45]] [[credibility=2:0.6]]',
  });
  expect((await refunds.assess(refund)).decided).toMatchObject({ outcome: 'escalate', reason: { cause: 'band' } });
  [{ id: recordId }] = await api.get(AssessmentRecordsToken).awaitingReview();
});

afterAll(async () => {
  await api?.close();
  await sim?.stop();
});

/** A POST of the JSON API as `agent`. */
function postJson(path: string, agent: string, body: unknown = {}): Promise<Response> {
  return fetch(`${base}/judgment/records/${path}`, {
    method: 'POST',
    headers: { 'x-agent': agent, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The review page of the record as `agent`, sending `cookie` if given: its CSRF token and the cookie it sets. */
async function openRecordPage(agent: string, cookie?: string): Promise<{ token: string; setCookie: string | null }> {
  const response = await fetch(`${base}/judgment/desk/records/${recordId}`, {
    headers: { 'x-agent': agent, ...(cookie ? { cookie } : {}) },
  });
  expect(response.status).toBe(200);
  const token = /name="_csrf" value="([^"]+)"/.exec(await response.text())?.[1];
  expect(token).toBeDefined();
  return { token: token!, setCookie: response.headers.get('set-cookie') };
}

/** The cookie pair of a Set-Cookie header (`name=value`). */
function cookiePair(setCookie: string | null): string {
  expect(setCookie).not.toBeNull();
  return setCookie!.split(';')[0];
}

/** A form POST of the review page as `agent`. */
function postForm(
  path: string,
  agent: string,
  { cookie, fields, origin }: { cookie: string; fields: Record<string, string>; origin?: string },
): Promise<Response> {
  return fetch(`${base}/judgment/desk/records/${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'x-agent': agent,
      cookie,
      'content-type': 'application/x-www-form-urlencoded',
      origin: origin ?? base,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

async function errorOf(response: Response): Promise<{ code: string; message: string; details: any }> {
  return ((await response.json()) as { error: { code: string; message: string; details: any } }).error;
}

describe('record ids past the id column (point 1)', () => {
  it('the review page answers 404 for a record id of 2^31 or more, like the JSON API', async () => {
    const page = await fetch(`${base}/judgment/desk/records/${BEYOND_ID_COLUMN}`, { headers: { 'x-agent': 'alice' } });
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('404 not_found');
    const json = await fetch(`${base}/judgment/records/${BEYOND_ID_COLUMN}`, { headers: { 'x-agent': 'alice' } });
    expect(json.status).toBe(404);
  });

  it('claim, renew, release and resolve of a record id of 2^31 or more are 404 not_found, on the page and in JSON', async () => {
    for (const action of ['claim', 'renew', 'release']) {
      const response = await postJson(`${BEYOND_ID_COLUMN}/${action}`, 'alice');
      expect([action, response.status]).toEqual([action, 404]);
      expect((await errorOf(response)).code).toBe('not_found');
    }
    const resolve = await postJson(`${BEYOND_ID_COLUMN}/resolve`, 'alice', { resolution: 'approve' });
    expect(resolve.status).toBe(404);
    const { token, setCookie } = await openRecordPage('alice');
    for (const action of ['claim', 'renew', 'release']) {
      const response = await postForm(`${BEYOND_ID_COLUMN}/${action}`, 'alice', {
        cookie: cookiePair(setCookie),
        fields: { _csrf: token },
      });
      expect([action, response.status]).toEqual([action, 404]);
    }
  });
});

describe('reviewer ids the columns cannot hold (point 2)', () => {
  it('a reviewer id over 255 characters is a validation_error naming the limit, not a server error', async () => {
    const claim = await postJson(`${recordId}/claim`, LONG_AGENT);
    expect(claim.status).toBe(400);
    const error = await errorOf(claim);
    expect(error.code).toBe('validation_error');
    expect(error.message).toMatch(/reviewer.*255/i);
    for (const action of ['renew', 'release']) {
      expect([action, (await postJson(`${recordId}/${action}`, LONG_AGENT)).status]).toEqual([action, 400]);
    }
    const resolve = await postJson(`${recordId}/resolve`, LONG_AGENT, { resolution: 'approve' });
    expect(resolve.status).toBe(400);
    expect((await errorOf(resolve)).code).toBe('validation_error');
    const mine = await fetch(`${base}/judgment/reviews?claim=mine`, { headers: { 'x-agent': LONG_AGENT } });
    expect(mine.status).toBe(400);
    expect((await api.get(AssessmentRecordsToken).find(recordId))!.isResolved()).toBe(false);
  });
});

describe('CSRF (point 3)', () => {
  it("the token is bound to the reviewer: alice's token and cookie are refused for bob", async () => {
    const alice = await openRecordPage('alice');
    const asBob = await postForm(`${recordId}/claim`, 'bob', {
      cookie: cookiePair(alice.setCookie),
      fields: { _csrf: alice.token },
    });
    expect(asBob.status).toBe(403);
    expect(await asBob.text()).toContain('CSRF');
    expect((await api.get(AssessmentRecordsToken).find(recordId))!.claimHolderId).toBeNull();
    // Bob's own page gives him a token of his own, which alice's cookie does not carry.
    const bob = await openRecordPage('bob', cookiePair(alice.setCookie));
    expect(bob.token).not.toBe(alice.token);
    expect(bob.setCookie).not.toBeNull();
  });

  it('a judgment_csrf cookie planted by someone else is never adopted as the token', async () => {
    const planted = `judgment_csrf=${'A'.repeat(43)}`;
    const page = await openRecordPage('alice', planted);
    expect(page.token).not.toContain('A'.repeat(43));
    expect(cookiePair(page.setCookie)).not.toBe(planted);
    const withPlanted = await postForm(`${recordId}/claim`, 'alice', {
      cookie: planted,
      fields: { _csrf: 'A'.repeat(43) },
    });
    expect(withPlanted.status).toBe(403);
    expect((await api.get(AssessmentRecordsToken).find(recordId))!.claimHolderId).toBeNull();
  });

  it('the Origin check compares scheme, host and port', async () => {
    const { token, setCookie } = await openRecordPage('alice');
    const { protocol, hostname, port } = new URL(base);
    const others = [
      `https://${hostname}:${port}`,
      `${protocol}//${hostname}:${Number(port) + 1}`,
      `${protocol}//localhost:${port}`,
    ];
    for (const origin of others) {
      const response = await postForm(`${recordId}/claim`, 'alice', {
        cookie: cookiePair(setCookie),
        fields: { _csrf: token },
        origin,
      });
      expect([origin, response.status]).toEqual([origin, 403]);
      expect(await response.text()).toContain('another origin');
    }
    const same = await postForm(`${recordId}/claim`, 'alice', {
      cookie: cookiePair(setCookie),
      fields: { _csrf: token },
    });
    expect(same.status).toBe(303);
    expect((await postJson(`${recordId}/release`, 'alice')).status).toBe(200);
  });
});

describe('unknown body fields (point 5)', () => {
  const UNKNOWN = [
    'nope',
    'constructor',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'prototype',
    '__defineGetter__',
    '__proto__',
  ];

  it.each(UNKNOWN)('a JSON body with the unknown field %s is refused like any other unknown field', async (field) => {
    for (const [action, body] of [
      ['resolve', { resolution: 'approve' }],
      ['claim', {}],
    ] as const) {
      const response = await postJson(`${recordId}/${action}`, 'alice', { ...body, [field]: 1 });
      expect([action, response.status]).toEqual([action, 400]);
      const error = await errorOf(response);
      expect(error.code).toBe('validation_error');
      expect(error.details.fields).toEqual({ [field]: [`property ${field} should not exist`] });
    }
    expect((await api.get(AssessmentRecordsToken).find(recordId))!.claimHolderId).toBeNull();
  });

  it('a review page form with a prototype-named field is refused too', async () => {
    const { token, setCookie } = await openRecordPage('alice');
    const response = await postForm(`${recordId}/claim`, 'alice', {
      cookie: cookiePair(setCookie),
      fields: { _csrf: token, constructor: '1' },
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('constructor');
  });
});
