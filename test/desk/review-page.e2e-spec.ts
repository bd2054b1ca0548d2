// The review page in a real browser (issue 16, items 3 and 4): Debian's Chromium through playwright-core against the
// support desk on PostgreSQL. A reviewer claims and resolves a case and sees it leave the queue; a second reviewer
// meets the claim conflict; hostile Evidence executes nothing; axe-core finds no serious or critical violation; the
// screenshots go to test-output/.
import type { INestApplication } from '@nestjs/common';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AssessmentRecords as AssessmentRecordsToken } from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { RefundsService } from '../../apps/support-desk/src/refunds/refunds.service';
import { launchChromium, screenshotPath } from '../support/browser';
import { startDeskApp, seriousViolations } from './desk-app';

const DATABASE = 'judgment_desk_page';
const KEY = 'desk-page-key';
const HOSTILE =
  'Refund please. <script>alert(1)</script> "><img src=x onerror=alert(1)> ' +
  '<a href="javascript:alert(1)">click me</a> javascript:alert(1) [[abusive=0.5]] [[credibility=2:0.6]]';
const PLAIN = 'The zip broke on the first day. [[abusive=0.45]] [[credibility=2:0.6]]';

let sim: JevSimulator;
let api: INestApplication;
let base: string;
let browser: Browser;
let hostileId: number;
let plainId: number;

/** What a page did that it must not: dialogs opened, requests to anything but this app's pages. */
interface Watch {
  dialogs: string[];
  foreign: string[];
}

async function reviewer(agent: string, watch: Watch): Promise<{ context: BrowserContext; page: Page }> {
  // bypassCSP: the page's Content-Security-Policy forbids every script; the test injects axe-core, and the XSS checks
  // then show that escaping alone keeps the hostile Evidence inert (the CSP is a second line).
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${base}/judgment/desk`) && !url.startsWith(`${base}/agent-login`)) watch.foreign.push(url);
  });
  await page.goto(`${base}/agent-login?agent=${agent}`);
  return { context, page };
}

beforeAll(async () => {
  ({ sim, api, base } = await startDeskApp(DATABASE, KEY));
  const refunds = api.get(RefundsService);
  const seed = async (explanation: string) => {
    const refund = await refunds.create({ item: 'Jacket', amountEur: 80, explanation });
    const { decided } = await refunds.assess(refund);
    expect(decided).toMatchObject({ outcome: 'escalate', reason: { cause: 'band' } });
    return refund;
  };
  await seed(HOSTILE);
  await seed(PLAIN);
  const [hostile, plain] = await api.get(AssessmentRecordsToken).awaitingReview();
  hostileId = hostile.id;
  plainId = plain.id;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await sim?.stop();
});

it('a reviewer opens the queue, pages it, claims, renews, resolves and sees the case leave the queue; a second reviewer meets the claim', async () => {
  const watch: Watch = { dialogs: [], foreign: [] };
  const alice = await reviewer('alice', watch);
  const bob = await reviewer('bob', watch);
  const { page } = alice;

  await page.goto(`${base}/judgment/desk`);
  await expect(page.title()).resolves.toBe('Awaiting Review — Review desk');
  expect(await page.locator(`a[href$="/records/${plainId}"]`).count()).toBe(1);
  expect(await page.locator('tbody tr').count()).toBe(2);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath('review-queue.png'), fullPage: true });

  // Pages by the after cursor (the last id shown), never by OFFSET; the filter form keeps to the same queue.
  await page.goto(`${base}/judgment/desk?limit=1`);
  expect(await page.locator('tbody tr a').getAttribute('href')).toMatch(new RegExp(`/records/${hostileId}$`));
  expect(await page.locator('a[rel=next]').getAttribute('href')).toBe(`/judgment/desk?limit=1&after=${hostileId}`);
  await page.click('a[rel=next]');
  expect(await page.locator('tbody tr a').getAttribute('href')).toMatch(new RegExp(`/records/${plainId}$`));
  expect(await page.locator('a[rel=next]').count()).toBe(0);
  await page.click('a[rel=first]');
  expect(await page.locator('tbody tr').count()).toBe(1);
  const byOffset = await page.goto(`${base}/judgment/desk?offset=40`); // not skipped in silence: refused
  expect(byOffset!.status()).toBe(400);
  await expect(page.locator('[role=alert]').innerText()).resolves.toContain('offset');
  await page.goto(`${base}/judgment/desk`);
  await page.selectOption('#claim', 'unclaimed');
  await page.click('button:text-is("Filter")');
  expect(new URL(page.url()).searchParams.get('claim')).toBe('unclaimed');
  expect(await page.locator('tbody tr').count()).toBe(2);

  await page.click(`a[href$="/records/${plainId}"]`);
  expect(await page.locator('button:text-is("Renew claim")').count()).toBe(0); // nothing to renew yet
  await page.click('button:text-is("Claim")');
  const until = page.locator('.controls time');
  const claimedUntil = await until.getAttribute('datetime');
  await page.waitForTimeout(20);
  await page.click('button:text-is("Renew claim")');
  expect(Date.parse((await until.getAttribute('datetime'))!)).toBeGreaterThan(Date.parse(claimedUntil!));

  // Someone else's claim is read-only: the holder and expiry, no button that would fail.
  await bob.page.goto(`${base}/judgment/desk/records/${plainId}`);
  await expect(bob.page.locator('.controls').innerText()).resolves.toContain('Claimed by agent #alice until');
  expect(await bob.page.locator('main button').count()).toBe(0);
  expect(await bob.page.content()).not.toMatch(/at \w+ \(|\.ts:\d+/); // no stack trace

  await page.selectOption('#resolution', 'approve');
  await page.click('button:has-text("Resolve")');
  await expect(page.locator('[role=status]').innerText()).resolves.toContain(
    `Record #${plainId} is resolved as "approve"`,
  );
  await page.goto(`${base}/judgment/desk`);
  expect(await page.locator(`a[href$="/records/${plainId}"]`).count()).toBe(0);
  expect(await page.locator(`a[href$="/records/${hostileId}"]`).count()).toBe(1);
  expect(watch).toEqual({ dialogs: [], foreign: [] });
  await alice.context.close();
  await bob.context.close();
});

it('hostile Evidence is shown inert and marked as user-written: no dialog, no request, no element from it', async () => {
  const watch: Watch = { dialogs: [], foreign: [] };
  const { context, page } = await reviewer('alice', watch);
  await page.goto(`${base}/judgment/desk/records/${hostileId}`);
  const untrusted = page.locator('figure.untrusted');
  await expect(untrusted.locator('figcaption').innerText()).resolves.toContain('User-written text (untrusted');
  const text = await untrusted.locator('pre').innerText();
  expect(text).toContain('<script>alert(1)</script>');
  expect(text).toContain('"><img src=x onerror=alert(1)>');
  expect(text).toContain('<a href="javascript:alert(1)">click me</a>');
  expect(await page.locator('main script, main img, main a[href^="javascript:"]').count()).toBe(0);
  // The answers as bars, with the Decision's thresholds on the answer they were compared with.
  const abusive = page.locator('.bar[aria-label^="abusive: probability of yes: probability 0.5"]');
  expect(await abusive.locator('.mark').evaluateAll((marks) => marks.map((m) => m.getAttribute('title')))).toEqual([
    'reject',
    'escalate',
  ]);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath('review-record.png'), fullPage: true });
  await page.waitForTimeout(300);
  expect(watch).toEqual({ dialogs: [], foreign: [] });
  await context.close();
});

it('a POST without the CSRF token, or from another origin, is refused as a page', async () => {
  const watch: Watch = { dialogs: [], foreign: [] };
  const { context, page } = await reviewer('alice', watch);
  await page.goto(`${base}/judgment/desk/records/${hostileId}`);
  const noToken = await context.request.post(`${base}/judgment/desk/records/${hostileId}/claim`, {
    form: { _csrf: 'forged' },
    maxRedirects: 0,
  });
  expect(noToken.status()).toBe(403);
  expect(await noToken.text()).toContain('no valid CSRF token');
  const token = await page.locator('input[name=_csrf]').first().inputValue();
  const crossSite = await context.request.post(`${base}/judgment/desk/records/${hostileId}/claim`, {
    form: { _csrf: token },
    headers: { origin: 'https://evil.example' },
    maxRedirects: 0,
  });
  expect(crossSite.status()).toBe(403);
  expect(await crossSite.text()).toContain('another origin');
  expect((await api.get(AssessmentRecordsToken).find(hostileId))!.claimHolderId).toBeNull();
  await context.close();
});

it('deny by default: a browser that names no agent gets the forbidden page, not the queue', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const response = await page.goto(`${base}/judgment/desk`);
  expect(response!.status()).toBe(403);
  expect(await page.locator('[role=alert]').innerText()).toContain('403 forbidden');
  expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");
  await context.close();
});

it('the JSON API: claim, a conflict naming the holder, the claim filters, bad ttl and unknown records', async () => {
  const post = (path: string, agent: string, body: unknown = {}) =>
    fetch(`${base}/judgment/records/${path}`, {
      method: 'POST',
      headers: { 'x-agent': agent, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const claimed = await post(`${hostileId}/claim`, 'alice', { ttl: '5m' });
  expect(claimed.status).toBe(200);
  expect(((await claimed.json()) as { claim: unknown }).claim).toMatchObject({
    holder: { type: 'agent', id: 'alice' },
  });
  const conflict = await post(`${hostileId}/claim`, 'bob');
  expect(conflict.status).toBe(409);
  const { error } = (await conflict.json()) as { error: { code: string; details: Record<string, unknown> } };
  expect(error.code).toBe('conflict');
  expect(error.details).toMatchObject({ type: 'ReviewClaimConflict', holder: { type: 'agent', id: 'alice' } });
  const list = (claim: string, agent: string) =>
    fetch(`${base}/judgment/reviews?claim=${claim}`, { headers: { 'x-agent': agent } }).then(async (r) =>
      ((await r.json()) as { data: Array<{ id: number }> }).data.map((record) => record.id),
    );
  expect(await list('mine', 'alice')).toEqual([hostileId]);
  expect(await list('unclaimed', 'bob')).not.toContain(hostileId);
  const badTtl = await post(`${hostileId}/renew`, 'alice', { ttl: '0s' });
  expect(badTtl.status).toBe(400);
  expect(((await badTtl.json()) as { error: { message: string } }).error.message).toContain('1 second to 24 hours');
  expect((await post('999999/claim', 'alice')).status).toBe(404);
  expect((await post(`${hostileId}/release`, 'alice')).status).toBe(200);
  expect(await list('unclaimed', 'bob')).toContain(hostileId);
});
