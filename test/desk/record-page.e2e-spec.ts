// The record page as a reviewer works it (issue 30, points 1 and 4), in Debian's Chromium through playwright-core
// against the support desk on PostgreSQL: the whole case (Question texts, Rating levels from 0, thresholds on the
// answer they apply to, the decision trace as `explain` prints it, why the case is in Review, Provenance folded),
// only the controls that apply to this reviewer now, a confirmation after each action, a case that changed under the
// reviewer shown fresh instead of overwritten, and the time spent recorded with the Resolution. axe-core finds no
// serious or critical violation in any state; screenshots go to test-output/.
import type { INestApplication } from '@nestjs/common';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AssessmentRecord, AssessmentRecords as AssessmentRecordsToken } from 'nestjs-judgment';
import { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { RefundsService } from '../../apps/support-desk/src/refunds/refunds.service';
import { launchChromium, screenshotPath } from '../support/browser';
import { startDeskApp, seriousViolations } from './desk-app';

const DATABASE = 'judgment_desk_record_page';
const KEY = 'desk-record-page-key';

let sim: JevSimulator;
let api: INestApplication;
let base: string;
let browser: Browser;
/** Records in Review: three uncertain refunds (band) and one a drift guard sent (set up below). */
let band: number[];
let drifted: number;

async function reviewer(agent: string): Promise<{ context: BrowserContext; page: Page }> {
  // bypassCSP: the page forbids every script; the test injects axe-core.
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/agent-login?agent=${agent}`);
  return { context, page };
}

/** The labels of the buttons in the page's main part: the actions offered. */
const buttons = (page: Page) => page.locator('main button').allInnerTexts();

const records = () => api.get(AssessmentRecordsToken);
/** The records' table, to change a case under a reviewer as another process would. */
const rows = () => api.get(DataSource).getRepository(AssessmentRecord);

beforeAll(async () => {
  ({ sim, api, base } = await startDeskApp(DATABASE, KEY));
  const refunds = api.get(RefundsService);
  for (const explanation of [
    'The zip broke on the first day. [[abusive=0.45]] [[credibility=2:0.6]]',
    'It arrived torn. [[abusive=0.4]] [[credibility=1:0.7]]',
    'Wrong size sent. [[abusive=0.35]] [[credibility=3:0.8]]',
    'Never arrived, tracking says lost. [[abusive=0.05]] [[credibility=3:0.9]]',
  ]) {
    await refunds.assess(await refunds.create({ item: 'Jacket', amountEur: 80, explanation }));
  }
  band = (await records().awaitingReview()).map((record) => record.id);
  expect(band).toHaveLength(3);
  // The fourth was approved automatically; as the drift guard would, send it to Review with its cause and reason.
  const [approved] = (await records().answered()).filter((record) => record.outcome === 'approve');
  drifted = approved.id;
  await rows().update(drifted, {
    reviewRequestedAt: new Date(),
    reviewCause: 'drift',
    reviewReason:
      'Calibration drift: the model answering (jev-2) is not the one refund-abuse was calibrated with (jev-1).',
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await sim?.stop();
});

it('shows the whole case: Question texts, Rating levels from 0, thresholds on their answers, the trace, why it is in Review', async () => {
  const { context, page } = await reviewer('alice');
  await page.goto(`${base}/judgment/desk/records/${band[0]}`);
  await expect(page.title()).resolves.toBe(`Record #${band[0]} — Review desk`);
  await expect(page.locator('header').innerText()).resolves.toContain('Signed in as agent #alice');

  // Why the case is in Review, before anything else.
  const why = page.locator('section.why');
  await expect(why.innerText()).resolves.toContain(
    'Uncertain: the Decision gave escalate, one of its Review Outcomes.',
  );

  // Each Question by its text (its key beside it), the Rating's levels by name and numbered from 0.
  const headings = await page.locator('.question h3').allInnerTexts();
  expect(headings).toEqual([
    'Is this refund request an attempt to abuse the refund policy?',
    'How credible is the explanation in request.explanation?',
  ]);
  const levels = await page.locator('.question').nth(1).locator('tbody th').allInnerTexts();
  expect(levels).toEqual([
    '0 · Not credible',
    '1 · Doubtful',
    '2 · Plausible',
    '3 · Fully credible',
    'Expected level (0–3)',
  ]);

  // Every threshold on the answer it applies to: reject and escalate on abusive, the 2.0 written in decide() on the
  // Rating's expected level; the margins rounded for display.
  const onAbusive = await page.locator('.question').nth(0).locator('ul.thresholds li').allInnerTexts();
  expect(onAbusive).toEqual([
    'reject 0.65: the answer is below it (margin -0.2)',
    'escalate 0.3: the answer is at or above it (margin +0.15)',
  ]);
  const onCredibility = await page.locator('.question').nth(1).locator('ul.thresholds li').allInnerTexts();
  expect(onCredibility).toHaveLength(1);
  expect(onCredibility[0]).toMatch(/^a number in decide\(\) 2: the answer is (below|at or above) it \(margin [-+]?\d/);
  expect(await page.locator('.question').nth(0).locator('.bar .mark').count()).toBe(2);
  expect(await page.locator('.question').nth(1).locator('.scale .mark').count()).toBe(1);

  // The decision trace, as `judgment explain` prints it.
  const trace = page.locator('section[aria-labelledby=trace]');
  await expect(trace.innerText()).resolves.toContain('Rule that fired: abusive ≥ escalate (0.3)');
  const steps = await trace.locator('ol li').allInnerTexts();
  expect(steps).toContain('abusive ≥ reject (0.65): value 0.45 did not hold, margin -0.2');
  expect(steps).toContain('abusive ≥ escalate (0.3): value 0.45 held, margin +0.15 — fired');

  // Provenance folded away; untrusted Evidence marked.
  expect(await page.locator('details').evaluate((d: any) => d.open)).toBe(false);
  await expect(page.locator('figure.untrusted figcaption').innerText()).resolves.toContain('untrusted');
  // Unclaimed: the one thing to do is to claim it.
  expect(await buttons(page)).toEqual(['Claim']);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath('record-unclaimed.png'), fullPage: true });

  // A drifted case reads as one the guard did not trust, not as an obviously fine approve.
  await page.goto(`${base}/judgment/desk/records/${drifted}`);
  await expect(page.locator('section.why').innerText()).resolves.toContain(
    'Calibration drift: the automatic Outcome approve was not trusted.',
  );
  await expect(page.locator('section.why').innerText()).resolves.toContain(
    'is not the one refund-abuse was calibrated',
  );
  expect(await seriousViolations(page)).toEqual([]);
  await context.close();
});

it('offers only what applies now, confirms each action, and shows someone else’s claim read-only', async () => {
  const alice = await reviewer('alice');
  const bob = await reviewer('bob');
  const { page } = alice;
  const id = band[1];
  await page.goto(`${base}/judgment/desk/records/${id}`);
  await page.click('button:text-is("Claim")');
  expect(new URL(page.url()).searchParams.get('done')).toBe('claimed');
  await expect(page.locator('[role=status]').innerText()).resolves.toMatch(
    new RegExp(`^You claimed record #${id} until \\d\\d:\\d\\d:\\d\\d UTC\\.`),
  );
  expect(await buttons(page)).toEqual(['Resolve', 'Renew claim', 'Release']);
  // No Outcome preselected: a required empty first option; the Review Outcome is not offered.
  const select = page.locator('#resolution');
  expect(await select.inputValue()).toBe('');
  expect(await select.evaluate((s: any) => s.required)).toBe(true);
  expect(await select.locator('option').allInnerTexts()).toEqual(['Choose an Outcome…', 'approve', 'reject']);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath('record-claimed-by-me.png'), fullPage: true });

  await bob.page.goto(`${base}/judgment/desk/records/${id}`);
  await expect(bob.page.locator('.controls').innerText()).resolves.toMatch(
    /Claimed by agent #alice until .+ \(in 1[45] min\)\. You can read it; it is theirs to resolve until then\./,
  );
  expect(await buttons(bob.page)).toEqual([]);
  await expect(bob.page.locator('header').innerText()).resolves.toContain('Signed in as agent #bob');
  expect(await seriousViolations(bob.page)).toEqual([]);
  await bob.page.screenshot({ path: screenshotPath('record-claimed-by-someone-else.png'), fullPage: true });

  const claimedAt = (await records().find(id))!.claimedAt!.getTime();
  await page.click('button:text-is("Renew claim")');
  await expect(page.locator('[role=status]').innerText()).resolves.toContain(`Your claim on record #${id} is renewed`);
  expect((await records().find(id))!.claimedAt!.getTime()).toBe(claimedAt); // the time on the case runs from the claim
  await page.click('button:text-is("Release")');
  await expect(page.locator('[role=status]').innerText()).resolves.toBe(
    `You released record #${id}: anyone may claim it now.`,
  );
  expect(await buttons(page)).toEqual(['Claim']);
  expect((await records().find(id))!.claimedAt).toBeNull();

  // A stale form of bob's (he opened the page when the case was free) meets alice's claim: the fresh case, the reason.
  await bob.page.goto(`${base}/judgment/desk/records/${id}`);
  await page.click('button:text-is("Claim")');
  const [claimed] = await Promise.all([
    bob.page.waitForResponse((r) => r.url().endsWith(`/records/${id}/claim`)),
    bob.page.click('button:text-is("Claim")'),
  ]);
  expect(claimed.status()).toBe(409);
  await expect(bob.page.locator('[role=alert]').innerText()).resolves.toContain(
    `Record #${id} is claimed by agent #alice until`,
  );
  await expect(bob.page.locator('[role=alert]').innerText()).resolves.toContain('this is the case as it is now');
  await expect(bob.page.locator('.controls').innerText()).resolves.toContain('Claimed by agent #alice');
  expect(await buttons(bob.page)).toEqual([]);
  await alice.context.close();
  await bob.context.close();
});

it('a case that changed under the reviewer is shown fresh, never overwritten; the Resolution keeps the time spent', async () => {
  const { context, page } = await reviewer('alice');
  const id = band[2];
  await page.goto(`${base}/judgment/desk/records/${id}`);
  await page.click('button:text-is("Claim")');
  const second = await context.newPage();
  await second.goto(`${base}/judgment/desk/records/${id}`);

  // Resolve with no Outcome chosen (the browser's required check bypassed): refused, with what to do.
  await page.locator('#resolution').evaluate((s: any) => s.removeAttribute('required'));
  const [empty] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/resolve')),
    page.click('button:text-is("Resolve")'),
  ]);
  expect(empty.status()).toBe(400);
  await expect(page.locator('[role=alert]').innerText()).resolves.toContain('Choose an Outcome before resolving');

  // The case is decided again while the page is open (a replay, a fix): the Resolution is not written over it.
  await rows().update(id, { reviewReason: 'Decided again: a new rule.' });
  await page.selectOption('#resolution', 'reject');
  const [stale] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/resolve')),
    page.click('button:text-is("Resolve")'),
  ]);
  expect(stale.status()).toBe(409);
  await expect(page.locator('[role=alert]').innerText()).resolves.toContain(
    `Record #${id} changed since you opened it`,
  );
  await expect(page.locator('section.why').innerText()).resolves.toContain('Decided again: a new rule.');
  expect((await records().find(id))!.resolvedAt).toBeNull();
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath('record-changed-under-reviewer.png'), fullPage: true });

  // Looked at again, resolved: the confirmation, and the time from claim to Resolution recorded with it.
  await page.selectOption('#resolution', 'approve');
  await page.click('button:text-is("Resolve")');
  await expect(page.locator('[role=status]').innerText()).resolves.toContain(
    `Record #${id} is resolved as "approve". Next unclaimed case in the queue`,
  );
  expect(await buttons(page)).toEqual([]);
  const resolved = (await records().find(id))!;
  expect(resolved.resolution).toBe('approve');
  expect(resolved.claimedAt).not.toBeNull();
  expect(resolved.reviewSeconds()).toBe(
    Math.round((resolved.resolvedAt!.getTime() - resolved.claimedAt!.getTime()) / 1000),
  );
  await expect(page.locator('main').innerText()).resolves.toMatch(
    /approve by agent #alice at .+, after \d+ s on the case/,
  );
  await expect(page.locator('#why').innerText()).resolves.toBe('Why this case went to Review');
  const json = await fetch(`${base}/judgment/records/${id}`, { headers: { 'x-agent': 'alice' } });
  expect(((await json.json()) as { review: { timeSpentSeconds: unknown } }).review.timeSpentSeconds).toBe(
    resolved.reviewSeconds(),
  );
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath('record-resolved.png'), fullPage: true });

  // The second tab, opened before: its Resolution meets the one already made, and says so with the fresh case.
  await second.selectOption('#resolution', 'reject');
  const [late] = await Promise.all([
    second.waitForResponse((r) => r.url().endsWith('/resolve')),
    second.click('button:text-is("Resolve")'),
  ]);
  expect(late.status()).toBe(409);
  await expect(second.locator('[role=alert]').innerText()).resolves.toContain(`Record #${id} is already resolved`);
  expect((await records().find(id))!.resolution).toBe('approve');
  await context.close();
});

it('the keyboard path: help, claim, pick an Outcome by number, confirm, and on to the next unclaimed case', async () => {
  // No bypassCSP: the desk's static script must run under the page's own Content-Security-Policy.
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on(
    'console',
    (message) => message.type() === 'error' && !/favicon|404/.test(message.text()) && errors.push(message.text()),
  );
  await page.goto(`${base}/agent-login?agent=alice`);
  const [first] = band;
  await page.goto(`${base}/judgment/desk/records/${first}`);
  await page.waitForSelector('#keys-hint', { state: 'visible' });

  await page.keyboard.press('?');
  await expect(page.locator('#keys-help').innerText()).resolves.toContain('1 approve · 2 reject');
  await page.screenshot({ path: screenshotPath('record-keyboard-help.png'), fullPage: false });
  await page.keyboard.press('?');
  expect(await page.locator('#keys-help').isVisible()).toBe(false);

  // j moves to the next case in the queue, k back.
  await page.keyboard.press('j');
  await page.waitForURL(`${base}/judgment/desk/records/${band[1]}`);
  await page.keyboard.press('k');
  await page.waitForURL(`${base}/judgment/desk/records/${first}`);
  await page.waitForSelector('#keys-hint', { state: 'visible' });

  await page.keyboard.press('c');
  await page.waitForURL(/done=claimed/);
  await expect(page.locator('[role=status]').first().innerText()).resolves.toContain(`You claimed record #${first}`);

  // A number picks an Outcome and asks first; Esc takes it back; nothing is resolved without Enter.
  await page.keyboard.press('2');
  await expect(page.locator('#keys-confirm').innerText()).resolves.toBe(
    `Resolve record #${first} as reject? Enter to confirm, Esc to cancel.`,
  );
  await page.keyboard.press('Escape');
  expect(await page.locator('#keys-confirm').isVisible()).toBe(false);
  expect((await records().find(first))!.resolvedAt).toBeNull();
  // Confirmed, then undone within the few seconds before it is sent.
  await page.keyboard.press('2');
  await page.keyboard.press('Enter');
  await expect(page.locator('#keys-confirm').innerText()).resolves.toBe('Resolving as reject in 4 s. Press u to undo.');
  await page.keyboard.press('u');
  await expect(page.locator('#keys-confirm').innerText()).resolves.toBe('Undone: nothing was resolved.');
  await page.waitForTimeout(4500);
  expect((await records().find(first))!.resolvedAt).toBeNull();
  expect(page.url()).toContain(`/records/${first}?done=claimed`);

  await page.keyboard.press('1');
  await expect(page.locator('#keys-confirm').innerText()).resolves.toContain('as approve?');
  await page.keyboard.press('Enter');

  // On to the next case nobody holds (band[1] is alice's claim, band[2] resolved): the drifted one.
  await page.waitForURL(`${base}/judgment/desk/records/${drifted}?resolved=${first}`);
  await expect(page.locator('[role=status]').first().innerText()).resolves.toBe(
    `Record #${first} is resolved as "approve". This is the next unclaimed case.`,
  );
  const resolved = (await records().find(first))!;
  expect([resolved.resolution, resolved.resolverId]).toEqual(['approve', 'alice']);
  expect(errors).toEqual([]);
  await context.close();
});

it('error pages are titled by what happened and lead somewhere useful', async () => {
  const { context, page } = await reviewer('alice');
  const bad = await page.goto(`${base}/judgment/desk?after=abc`);
  expect(bad!.status()).toBe(400);
  await expect(page.title()).resolves.toBe('The address or form was not understood — Review desk');
  const alert = await page.locator('[role=alert]').innerText();
  expect(alert).toContain('after');
  expect(alert).not.toContain('details.fields');
  expect(await page.locator('main a').getAttribute('href')).toBe('/judgment/desk');

  const missing = await page.goto(`${base}/judgment/desk/records/999999`);
  expect(missing!.status()).toBe(404);
  await expect(page.title()).resolves.toBe('Not found — Review desk');
  await context.close();

  const stranger = await browser.newContext();
  const refused = await stranger.newPage();
  const forbidden = await refused.goto(`${base}/judgment/desk`);
  expect(forbidden!.status()).toBe(403);
  await expect(refused.title()).resolves.toBe('You may not open this page — Review desk');
  const links = await refused.locator('main a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  expect(links).toEqual(['/']); // not the desk, which would refuse again
  await stranger.close();
});
