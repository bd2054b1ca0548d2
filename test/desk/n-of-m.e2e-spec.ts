// N-of-M review on the desk (issue 30, point 5), in Debian's Chromium through playwright-core against the support desk
// on PostgreSQL: two reviewers vote blind on 2-of-2 cases (neither sees the other's vote before casting their own);
// agreement resolves a case; a disagreement leaves it for adjudication, which only a lead may give, through the page.
// The agreement page then shows raw agreement and Cohen's kappa with their counts. axe-core finds no serious or
// critical violation; screenshots go to test-output/.
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type Assessment, AssessmentRecords, Decision, Judge, JudgmentModule } from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { supportDeskConfig } from '../../apps/support-desk/src/config/support-desk.config';
import { RefundAbuse } from '../../apps/support-desk/src/refunds/refund-abuse.judgment';
import { RefundOutcome } from '../../apps/support-desk/src/refunds/refund.decision';
import { RefundsService } from '../../apps/support-desk/src/refunds/refunds.service';
import { SupportDeskModule } from '../../apps/support-desk/src/support-desk.module';
import { launchChromium, screenshotPath } from '../support/browser';
import { databaseUrl, recreateDatabase } from '../support/postgres';
import { seriousViolations } from './desk-app';

const DATABASE = 'judgment_desk_n_of_m';
const KEY = 'desk-n-of-m-key';

/** The support desk's refund rule, but a case in Review needs two agreeing agents. */
@Decision({
  outcomes: RefundOutcome,
  review: { outcomes: [RefundOutcome.Escalate], reviewers: 2 },
  name: 'paired-refund',
})
class PairedRefundDecision {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return RefundOutcome.Reject;
    return abusive.above(0.3) ? RefundOutcome.Escalate : RefundOutcome.Approve;
  }
}

let sim: JevSimulator;
let api: INestApplication;
let base: string;
let browser: Browser;
/** Two 2-of-2 cases in Review: one the agents agree on, one they do not. */
let agreed: number;
let disputed: number;

async function reviewer(agent: string): Promise<{ context: BrowserContext; page: Page }> {
  // bypassCSP: the page forbids every script; the test injects axe-core.
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/agent-login?agent=${agent}`);
  return { context, page };
}

const buttons = (page: Page) => page.locator('main button').allInnerTexts();
const records = () => api.get(AssessmentRecords);

/** Claims the case on the page and casts `outcome` with the form (the button says what it is: vote, adjudication). */
async function claimAndSubmit(page: Page, id: number, outcome: string, button: string): Promise<void> {
  await page.goto(`${base}/judgment/desk/records/${id}`);
  await page.click('button:text-is("Claim")');
  expect(await buttons(page)).toEqual([button, 'Renew claim', 'Release']);
  await page.selectOption('#resolution', outcome);
  await page.click(`button:text-is("${button}")`);
}

/** The votes of the JSON API for an agent. */
async function jsonVotes(id: number, agent: string): Promise<any> {
  const response = await fetch(`${base}/judgment/records/${id}`, { headers: { 'x-agent': agent } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { votes: unknown }).votes;
}

beforeAll(async () => {
  await recreateDatabase(DATABASE);
  sim = new JevSimulator({ apiKey: KEY });
  const url = await sim.start(0);
  const config = supportDeskConfig({
    DATABASE_URL: databaseUrl(DATABASE),
    TYPESAFE_API_KEY: KEY,
    TYPESAFE_BASE_URL: url,
    JUDGMENT_JEV_RETRIES: '0',
    JUDGMENT_LOG: 'false',
    SUPPORT_DESK_AGENTS: 'alice,bob,lead',
    SUPPORT_DESK_LEADS: 'lead',
  });
  @Module({ imports: [SupportDeskModule.forRoot(config, 'all'), JudgmentModule.forFeature([PairedRefundDecision])] })
  class PairedDeskModule {}
  api = await NestFactory.create(PairedDeskModule, { logger: false, abortOnError: false });
  await api.listen(0, '127.0.0.1');
  base = (await api.getUrl()).replace('[::1]', '127.0.0.1');
  const refunds = api.get(RefundsService);
  const ids: number[] = [];
  for (const explanation of ['The zip broke. [[abusive=0.45]]', 'It arrived torn. [[abusive=0.4]]']) {
    const refund = await refunds.create({ item: 'Jacket', amountEur: 80, explanation });
    await api.get(Judge).assess(new RefundAbuse(refund));
    const record = (await records().latest(refund, RefundAbuse))!;
    await records().decide(record, new PairedRefundDecision());
    ids.push(record.id);
  }
  [agreed, disputed] = ids;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await sim?.stop();
});

it('two agents agree on a 2-of-2 case: blind until each voted, resolved by the second vote', async () => {
  const alice = await reviewer('alice');
  const bob = await reviewer('bob');
  await claimAndSubmit(alice.page, agreed, 'approve', 'Cast vote');
  await expect(alice.page.locator('[role=status]').innerText()).resolves.toContain(
    `Your vote on record #${agreed} is recorded; the case is not resolved yet.`,
  );
  await alice.page.goto(`${base}/judgment/desk/records/${agreed}`);
  await expect(alice.page.locator('.controls').innerText()).resolves.toContain(
    'You voted approve. Waiting for 1 more vote; a vote is final.',
  );
  expect(await buttons(alice.page)).toEqual([]);

  // Bob has not voted: the count, not the vote, on the page and in the JSON API.
  await bob.page.goto(`${base}/judgment/desk/records/${agreed}`);
  const votes = bob.page.locator('section[aria-labelledby=votes-title]');
  await expect(votes.innerText()).resolves.toContain('1 of 2 independent votes cast.');
  await expect(votes.innerText()).resolves.toContain('hidden until you cast yours');
  await expect(bob.page.locator('main').innerText()).resolves.not.toMatch(/alice: approve|agent #alice/);
  expect(await buttons(bob.page)).toEqual(['Claim']);
  expect(await jsonVotes(agreed, 'bob')).toEqual({
    required: 2,
    cast: 1,
    needsAdjudication: false,
    voted: false,
    votes: null,
  });
  expect((await jsonVotes(agreed, 'alice')).votes).toEqual([
    { reviewer: { type: 'agent', id: 'alice' }, outcome: 'approve', createdAt: expect.any(String) },
  ]);
  expect(await seriousViolations(bob.page)).toEqual([]);
  await bob.page.screenshot({ path: screenshotPath('n-of-m-blind.png'), fullPage: true });

  await claimAndSubmit(bob.page, agreed, 'approve', 'Cast vote');
  await expect(bob.page.locator('[role=status]').innerText()).resolves.toContain(
    `Record #${agreed} is resolved as "approve".`,
  );
  const row = (await records().find(agreed))!;
  expect([row.resolution, row.resolverType, row.resolverId]).toEqual(['approve', 'agent', 'bob']);
  await expect(bob.page.locator('section[aria-labelledby=votes-title] li').allInnerTexts()).resolves.toEqual([
    expect.stringMatching(/^agent #alice: approve at /),
    expect.stringMatching(/^agent #bob: approve at /),
  ]);
  await alice.context.close();
  await bob.context.close();
});

it('one disagreement: the case awaits adjudication, the agents cannot settle it, the lead adjudicates on the page', async () => {
  const alice = await reviewer('alice');
  const bob = await reviewer('bob');
  const lead = await reviewer('lead');
  await claimAndSubmit(alice.page, disputed, 'approve', 'Cast vote');
  await claimAndSubmit(bob.page, disputed, 'reject', 'Cast vote');
  await expect(bob.page.locator('[role=status]').innerText()).resolves.toContain(
    `Your vote on record #${disputed} is recorded; the case is not resolved yet.`,
  );
  await bob.page.goto(`${base}/judgment/desk/records/${disputed}`);
  await expect(bob.page.locator('main').innerText()).resolves.toMatch(
    /refund-abuse · Refund #\d+ · awaiting adjudication/,
  );
  await expect(bob.page.locator('section[aria-labelledby=votes-title]').innerText()).resolves.toContain(
    'The votes disagree: the case awaits adjudication',
  );
  await expect(bob.page.locator('.controls').innerText()).resolves.toContain('it awaits adjudication');
  expect(await buttons(bob.page)).toEqual([]);
  // A second agent who did not vote: no vote left to cast, nothing to do here.
  expect((await jsonVotes(disputed, 'lead')).needsAdjudication).toBe(true);

  await lead.page.goto(`${base}/judgment/desk/records/${disputed}`);
  await expect(lead.page.locator('section[aria-labelledby=votes-title] li').allInnerTexts()).resolves.toEqual([
    expect.stringMatching(/^agent #alice: approve at /),
    expect.stringMatching(/^agent #bob: reject at /),
  ]);
  expect(await buttons(lead.page)).toEqual(['Claim']);
  await lead.page.click('button:text-is("Claim")');
  await expect(lead.page.locator('label[for=resolution]').innerText()).resolves.toBe('Adjudication');
  expect(await seriousViolations(lead.page)).toEqual([]);
  await lead.page.screenshot({ path: screenshotPath('n-of-m-adjudication.png'), fullPage: true });
  // The keyboard path says what Enter would send here: an adjudication, not a plain Resolution.
  await lead.page.keyboard.press('2');
  await expect(lead.page.locator('#keys-confirm').innerText()).resolves.toBe(
    `Adjudicate record #${disputed} as reject? Enter to confirm, Esc to cancel.`,
  );
  await lead.page.keyboard.press('Escape');
  await lead.page.selectOption('#resolution', 'reject');
  await lead.page.click('button:text-is("Adjudicate")');
  await expect(lead.page.locator('[role=status]').innerText()).resolves.toContain(
    `Record #${disputed} is resolved as "reject".`,
  );
  const row = (await records().find(disputed))!;
  expect([row.resolution, row.resolverId]).toEqual(['reject', 'lead']);
  for (const { context } of [alice, bob, lead]) await context.close();
});

it('the agreement page: raw agreement and Cohen’s kappa per Judgment and per reviewer pair, with their counts', async () => {
  const { context, page } = await reviewer('alice');
  await page.click('a:text-is("Reviewer agreement")');
  expect(new URL(page.url()).pathname).toBe('/judgment/desk/stats');
  await expect(page.title()).resolves.toBe('Reviewer agreement — Review desk');
  const cells = (table: number) =>
    page
      .locator('table')
      .nth(table)
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => (cell as any).innerText)));
  // Two cases, two pairs: (approve, approve) and (approve, reject). pₒ .5; alice always approve: pₑ .5; κ 0.
  expect(await cells(0)).toEqual([['refund-abuse', '2', '2', '50.0 %', '0.000']]);
  expect(await cells(1)).toEqual([['refund-abuse', 'agent #alice and agent #bob', '2', '50.0 %', '0.000']]);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: screenshotPath('n-of-m-agreement.png'), fullPage: true });
  await page.click('a:text-is("refund-abuse")');
  await expect(page.locator('h1').innerText()).resolves.toBe('Reviewer agreement of refund-abuse');
  await page.goto(`${base}/judgment/desk/stats?judgment=nothing-here`);
  await expect(page.locator('main').innerText()).resolves.toContain('No case of nothing-here has two votes yet');
  await context.close();
});
