// Triage on the review queue (issue 30, point 2), from a reviewer's side in Debian's Chromium against the support desk
// on PostgreSQL: each row's one-line summary (the refund Judgment's reviewSummary, the ticket's default), why it is
// in Review, the deadline's urgency, the closeness of the call and the claim holder; sorts by deadline and least
// confidence paged by the after cursor; filters by Judgment, reason and claim; counts per Judgment; bad values
// refused in words (page) and in the envelope (JSON API); axe-core; a screenshot in test-output/.
import type { INestApplication } from '@nestjs/common';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AssessmentRecords } from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { DataSource } from 'typeorm';
import { RefundsService } from '../../apps/support-desk/src/refunds/refunds.service';
import { TicketsService } from '../../apps/support-desk/src/tickets/tickets.service';
import { ReviewDeadlines } from '../../libs/judgment/src/review/review-deadlines.service';
import { launchChromium, screenshotPath } from '../support/browser';
import { startDeskApp } from './desk-app';

const DATABASE = 'judgment_desk_triage';
const KEY = 'desk-triage-key';

let sim: JevSimulator;
let api: INestApplication;
let base: string;
let browser: Browser;
const contexts: BrowserContext[] = [];
/** The records by role: margins .15, .03, .10 (refunds); a ticket in triage (no deadline, no margin). */
const ids = { wide: 0, close: 0, middle: 0, drifted: 0, ticket: 0 };

async function signedIn(agent: string): Promise<Page> {
  // bypassCSP: the page forbids every script; the test injects axe-core.
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${base}/agent-login?agent=${agent}`);
  return page;
}

/** The record ids of the queue's rows, top to bottom. */
async function rowIds(page: Page): Promise<number[]> {
  const hrefs = await page
    .locator('tbody tr td:first-child a')
    .evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
  return hrefs.map((href) => Number(/\/records\/(\d+)$/.exec(href)?.[1]));
}

/** The text of the row of one record. */
function rowOf(page: Page, id: number) {
  return page.locator('tbody tr', { has: page.locator(`a[href$="/records/${id}"]`) });
}

beforeAll(async () => {
  ({ sim, api, base } = await startDeskApp(DATABASE, KEY));
  const refunds = api.get(RefundsService);
  const records = api.get(AssessmentRecords);
  const refund = async (item: string, abusive: number) => {
    const created = await refunds.create({
      item,
      amountEur: 40,
      explanation: `It broke on day one. [[abusive=${abusive}]] [[credibility=2:0.6]]`,
    });
    const { decided } = await refunds.assess(created);
    expect(decided).toMatchObject({ outcome: 'escalate' });
    const [record] = await records.awaitingReview({ sort: 'age', limit: 1000 }).then((all) => all.slice(-1));
    return record.id;
  };
  ids.wide = await refund('Kettle', 0.45); // margin .15 (from escalate .3)
  ids.close = await refund('Toaster', 0.33); // margin .03
  ids.middle = await refund('Blender', 0.55); // margin .10 (from reject .65)
  ids.drifted = await refund('Lamp', 0.4); // margin .10; sent to Review by drift below
  const ticket = await api.get(TicketsService).create({
    subject: 'Where is my parcel?',
    body: 'What breed is it? [[department=none:0.85]]',
  } as never);
  const { decided } = await api.get(TicketsService).assess(ticket);
  expect(decided).toMatchObject({ outcome: 'triage' });
  ids.ticket = (await records.awaitingReview({ judgment: 'ticket-routing' }))[0].id;

  // The deadline sweep would resolve the overdue case within a minute (deadlines.e2e-spec.ts covers that): stopped,
  // so the queue can show it overdue through the whole suite.
  await api.get(ReviewDeadlines).onModuleDestroy();
  // Urgency and causes, arranged on the rows: the close call is overdue, the middle one due in 20 minutes, the wide
  // one due in 30 hours; the lamp went to Review for calibration drift.
  const db = api.get(DataSource);
  const at = (minutes: number) => new Date(Date.now() + minutes * 60_000);
  await db.query('UPDATE judgment_assessments SET review_deadline_at = $1 WHERE id = $2', [at(-5), ids.close]);
  await db.query('UPDATE judgment_assessments SET review_deadline_at = $1 WHERE id = $2', [at(20), ids.middle]);
  await db.query('UPDATE judgment_assessments SET review_deadline_at = $1 WHERE id = $2', [at(30 * 60), ids.wide]);
  await db.query(`UPDATE judgment_assessments SET review_cause = 'drift' WHERE id = $1`, [ids.drifted]);
  await records.claim(ids.middle, { type: 'agent', id: 'bob' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await api?.close();
  await sim?.stop();
});

it('each row shows its summary, why it is in Review, the deadline with its urgency, the closeness of the call and the claim holder; counts per Judgment head the queue', async () => {
  const page = await signedIn('alice');
  await page.goto(`${base}/judgment/desk`);
  expect(await rowIds(page)).toEqual([ids.wide, ids.close, ids.middle, ids.drifted, ids.ticket]); // oldest first
  const close = await rowOf(page, ids.close).innerText();
  expect(close).toContain('Toaster, €40: It broke on day one.'); // the Judgment's reviewSummary
  expect(close).toContain('Uncertain');
  expect(close).toMatch(/Overdue\s+by 5 min/);
  expect(close).toContain('0.03 from a threshold');
  expect(close).toContain('Unclaimed');
  const middle = await rowOf(page, ids.middle).innerText();
  expect(middle).toMatch(/Due soon\s+in 20 min/);
  expect(middle).toContain('agent #bob, until');
  expect(await rowOf(page, ids.wide).innerText()).toMatch(/in 30 h/);
  expect(await rowOf(page, ids.wide).innerText()).not.toMatch(/Overdue|Due soon/);
  expect(await rowOf(page, ids.drifted).innerText()).toContain('Calibration drift');
  const ticket = await rowOf(page, ids.ticket).innerText();
  expect(ticket).toContain('Ticket #1 — Where is my parcel?'); // the default: entity, key, first short text field
  expect(ticket).toContain('None (waits for a person)');
  const counts = await page.locator('nav[aria-label="Cases per Judgment"]').innerText();
  expect(counts).toContain('5 awaiting Review');
  expect(counts).toMatch(/refund-abuse 4/);
  expect(counts).toMatch(/ticket-routing 1/);

  await page.screenshot({ path: screenshotPath('review-triage.png'), fullPage: true });
  const violations = await (async () => {
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    return page.evaluate(async () => {
      const scope = globalThis as any;
      const result = await scope.axe.run(scope.document, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] });
      return result.violations
        .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
        .map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
  })();
  expect(violations).toEqual([]);
});

it('the reviewer sorts by nearest deadline and by least confidence, and pages each order by the after cursor without gaps', async () => {
  const page = await signedIn('alice');
  await page.goto(`${base}/judgment/desk`);
  await page.selectOption('#sort', 'deadline');
  await page.click('button:text-is("Filter")');
  expect(new URL(page.url()).searchParams.get('sort')).toBe('deadline');
  // Nearest first; the drifted lamp keeps the 48 h deadline its Decision gave; the ticket has none: last.
  expect(await rowIds(page)).toEqual([ids.close, ids.middle, ids.wide, ids.drifted, ids.ticket]);

  await page.selectOption('#sort', 'confidence');
  await page.click('button:text-is("Filter")');
  // Least confident first: .03, then the two .10 by id, then .15 (the ticket sits where its own margin puts it).
  const byMargin = (await rowIds(page)).filter((id) => id !== ids.ticket);
  expect(byMargin).toEqual([ids.close, ids.middle, ids.drifted, ids.wide]);

  for (const sort of ['deadline', 'confidence']) {
    await page.goto(`${base}/judgment/desk?sort=${sort}`);
    const whole = await rowIds(page);
    const paged: number[] = [];
    await page.goto(`${base}/judgment/desk?sort=${sort}&limit=2`);
    for (;;) {
      paged.push(...(await rowIds(page)));
      const next = page.locator('a[rel=next]');
      if ((await next.count()) === 0) break;
      expect(await next.getAttribute('href')).toContain(`sort=${sort}`);
      await next.click();
    }
    expect(paged).toEqual(whole);
  }
});

it('the reviewer filters by Judgment, by reason and by claim (mine, unclaimed, others)', async () => {
  const alice = await signedIn('alice');
  await alice.goto(`${base}/judgment/desk`);
  await alice.click('nav[aria-label="Cases per Judgment"] a:text-is("ticket-routing")');
  expect(await rowIds(alice)).toEqual([ids.ticket]);

  await alice.goto(`${base}/judgment/desk`);
  await alice.selectOption('#reason', 'drift');
  await alice.click('button:text-is("Filter")');
  expect(await rowIds(alice)).toEqual([ids.drifted]);

  await alice.goto(`${base}/judgment/desk?claim=others`);
  expect(await rowIds(alice)).toEqual([ids.middle]); // bob's
  await alice.goto(`${base}/judgment/desk?claim=unclaimed&sort=deadline`);
  expect(await rowIds(alice)).toEqual([ids.close, ids.wide, ids.drifted, ids.ticket]);

  const bob = await signedIn('bob');
  await bob.goto(`${base}/judgment/desk?claim=mine`);
  expect(await rowIds(bob)).toEqual([ids.middle]);
  expect(await rowOf(bob, ids.middle).innerText()).toContain('You, until'); // their own claim
  await bob.goto(`${base}/judgment/desk?claim=others`);
  expect(await rowIds(bob)).toEqual([]);
  await expect(bob.locator('main').innerText()).resolves.toContain('No case awaits Review with these filters.');
});

it('a bad sort, reason or claim is refused: on the page in words naming the field and its values, on the JSON API as a 400 envelope', async () => {
  const page = await signedIn('alice');
  const refused = await page.goto(`${base}/judgment/desk?sort=urgent`);
  expect(refused!.status()).toBe(400);
  const alert = await page.locator('[role=alert]').innerText();
  expect(alert).toContain('sort must be one of age, deadline, confidence');
  expect(alert).not.toContain('details.fields');

  for (const [query, message] of [
    ['sort=newest', 'sort must be one of age, deadline, confidence'],
    ['reason=hunch', 'reason must be one of band, drift, collapse'],
    ['claim=theirs', 'claim must be one of unclaimed, mine, others'],
  ]) {
    const response = await page.request.get(`${base}/judgment/reviews?${query}`);
    expect(response.status()).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'validation_error', details: { fields: { [query.split('=')[0]]: [message] } } },
    });
  }
  const offset = await page.request.get(`${base}/judgment/reviews?sort=deadline&offset=2`);
  expect(offset.status()).toBe(400);
  expect(JSON.stringify(await offset.json())).toContain('offset pages only the age order');

  // The JSON list sorts and filters alike, each item with its summary.
  const list = await page.request.get(`${base}/judgment/reviews?sort=confidence&reason=band&limit=2`);
  const body = await list.json();
  expect(body.data.map((item: { id: number }) => item.id)).toEqual([ids.close, ids.middle]);
  expect(body.data[0]).toMatchObject({ summary: expect.stringContaining('Toaster'), decisionMargin: 0.03 });
  expect(body.page.nextAfter).toBe(ids.middle);
});
