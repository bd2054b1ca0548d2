// `judgment eval --suggest` and `--lock` as a real process: the demo's command line over PostgreSQL, its in-process
// Jev simulator answering the demo's 600-case calibration dataset.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DataSource } from 'typeorm';
import type { Page } from 'playwright-core';
import { launchChromium, screenshotPath } from '../support/browser';
import { PG, databaseUrl, recreateDatabase } from '../support/postgres';
import { AssessmentRecord, judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { CalibrationLock } from 'nestjs-judgment/calibration';

const ROOT = join(__dirname, '..', '..');
const DATABASE = 'judgment_calib_cli';
const DATASET = 'apps/support-desk/datasets/refund-abuse.calibration.json';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', './scripts/register.js', 'apps/support-desk/src/cli.ts', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl(DATABASE) },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** `judgment eval refund-abuse --dataset=… --suggest --max-error <maxError> --confidence <confidence> [...more]` */
function suggest(maxError: string, confidence: string, ...more: string[]): Promise<Run> {
  return cli([
    'eval',
    'refund-abuse',
    `--dataset=${DATASET}`,
    '--suggest',
    '--max-error',
    maxError,
    '--confidence',
    confidence,
    ...more,
  ]);
}

const dir = mkdtempSync(join(tmpdir(), 'calib-cli-'));

/**
 * Opens a report the CLI wrote in headless Chromium: checks it is self-contained, runs `check` on the page, saves a
 * screenshot under the test output folder, and expects no console error and no request beyond the file.
 */
async function viewReport(file: string, screenshot: string, check: (page: Page) => Promise<void>): Promise<void> {
  const html = readFileSync(file, 'utf8');
  expect(html).not.toMatch(/(src|href)=["']?(https?:|\/\/)/); // no external asset
  expect(html).not.toContain('<script');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(`file://${file}`);
    await page.screenshot({ path: screenshotPath(screenshot), fullPage: true });
    await check(page);
    expect(problems).toEqual([]);
    expect(requests.filter((url) => !url.startsWith('file://'))).toEqual([]);
  } finally {
    await browser.close();
  }
}

/** Texts of each chart on the page whose boxes overlap (tick labels, axis titles, legends, band labels): none. */
async function overlappingTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const document = (globalThis as any).document;
    for (const chart of Array.from<any>(document.querySelectorAll('svg'))) {
      const boxes = Array.from<any>(chart.querySelectorAll('text'))
        .filter((text) => (text.textContent ?? '').trim() !== '')
        .map((text) => ({ text: text.textContent as string, box: text.getBoundingClientRect() }));
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i].box, boxes[j].box];
          const overlap =
            a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
          if (overlap) found.push(`${boxes[i].text} × ${boxes[j].text}`);
        }
      }
    }
    return found;
  });
}

beforeAll(() => recreateDatabase(DATABASE));

describe('judgment eval --suggest', () => {
  it('suggests certified thresholds from one run, names the method, and gives the next version', async () => {
    const run = await suggest('0.05', '0.95', '--json');
    expect(run.code).toBe(0);
    const { report, suggestions } = JSON.parse(run.stdout);
    expect(report.results[0].cases).toBe(600);
    expect(suggestions).toHaveLength(1);
    const [suggestion] = suggestions;
    expect(suggestion.method).toContain('Learn then Test');
    expect(suggestion.assumption).toContain('exchangeable');
    // Of the 51 × 51 grid, the pairs keeping the Review band escalate–reject at least 0.1 wide: Σ 1..46.
    expect(suggestion.candidates).toBe(1081);
    expect(suggestion.minBand).toBe(0.1);
    expect(suggestion.bands).toEqual([{ lower: 'escalate', upper: 'reject', declared: false }]);
    for (const point of [suggestion.chosen, ...suggestion.frontier]) {
      expect(point.thresholds.reject - point.thresholds.escalate).toBeGreaterThanOrEqual(0.1 - 1e-9);
    }
    expect(suggestion.chosen.certified).toBe(true);
    expect(suggestion.chosen.errorBound).toBeLessThanOrEqual(0.05);
    expect(Object.keys(suggestion.chosen.thresholds).sort()).toEqual(['escalate', 'reject']);
    expect(suggestion.nextVersion).toBe('3');
    // The frontier runs from the least reviewed candidate up, each with a lower error bound than the one before.
    const bounds = suggestion.frontier.map((point: { errorBound: number }) => point.errorBound);
    expect(bounds).toEqual([...bounds].sort((a, b) => b - a));
  });

  it('prints the frontier, the choice and a snippet of the next version', async () => {
    const run = await suggest('0.05', '0.95');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Suggested thresholds · RefundDecision v2');
    expect(run.stdout).toMatch(/│ chosen\s+│ \{ reject: [\d.]+, escalate: [\d.]+ \}/);
    expect(run.stdout).toContain("@Decision({ …, version: '3' })");
    expect(run.stdout).toMatch(/readonly thresholds = \{ reject: [\d.]+, escalate: [\d.]+ \};/);
    expect(run.stdout).toContain('Review bands kept at least 0.1 wide: escalate–reject');
    expect(run.stdout).toMatch(/the test half certified \d+ and stopped at \{/);
    expect(run.stdout).toMatch(/no: not ordered \(learn half\)|no: not tested \(after the stop\)/);
  });

  it('keeps the Review band as wide as --min-band asks, or as declared with --band', async () => {
    const run = await suggest('0.05', '0.95', '--min-band', '0.3', '--band', 'escalate:reject', '--json');
    const [suggestion] = JSON.parse(run.stdout).suggestions;
    expect(suggestion.minBand).toBe(0.3);
    expect(suggestion.bands).toEqual([{ lower: 'escalate', upper: 'reject', declared: true }]);
    for (const point of [suggestion.chosen, ...suggestion.frontier].filter(Boolean)) {
      expect(point.thresholds.reject - point.thresholds.escalate).toBeGreaterThanOrEqual(0.3 - 1e-9);
    }
    const bad = await suggest('0.05', '0.95', '--min-band', '0');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('minBand (--min-band) must be a number strictly between 0 and 1');
    const unnamed = await suggest('0.05', '0.95', '--band', 'escalate');
    expect(unnamed.stderr).toContain('--band takes two threshold names, lower:upper');
  });

  it('says when no candidate meets the target, keeps the target, estimates the cases needed, and exits 1', async () => {
    const run = await suggest('0.01', '0.99', '--json');
    expect(run.code).toBe(1);
    const [suggestion] = JSON.parse(run.stdout).suggestions;
    expect(suggestion.chosen).toBeNull();
    expect(suggestion.target).toEqual({ maxError: 0.01, confidence: 0.99, maxReviewRate: null });
    expect(suggestion.verdict).toContain('The target was not weakened');
    expect(suggestion.casesNeeded).toBeGreaterThan(600);
    expect(suggestion.verdict).toMatch(/stopped at \{|No candidate passed the learn half/);
    expect(suggestion.verdict).toMatch(
      new RegExp(`(about|at least) ${suggestion.casesNeeded} labelled cases \\(now 600\\)`),
    );
  });

  it('refuses a target outside (0, 1) before asking the Engine, naming the option', async () => {
    const run = await suggest('1.5', '0.95');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('maxError (--max-error) must be a number strictly between 0 and 1');
    const confidence = await suggest('0.05', '0');
    expect(confidence.stderr).toContain('confidence (--confidence) must be a number strictly between 0 and 1');
  });

  it('refuses --suggest without a target (a usage error)', async () => {
    const run = await cli(['eval', 'refund-abuse', `--dataset=${DATASET}`, '--suggest']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--suggest needs --max-error <share> and --confidence <share>');
  });
});

describe('judgment eval --lock', () => {
  it('writes the lock with the run’s identity and figures, and rewrites it byte for byte but the date', async () => {
    const file = join(dir, 'judgment.lock.json');
    const first = await cli(['eval', 'refund-abuse', `--dataset=${DATASET}`, `--lock=${file}`, '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).lock).toBe(relative(ROOT, file)); // shown relative to the current folder
    const entry = CalibrationLock.read(file).entry('refund-abuse', 'RefundDecision', '2');
    expect(entry?.thresholds).toEqual({ reject: 0.65, escalate: 0.3 });
    expect(entry?.identities[0]).toMatchObject({ model: 'jev-1.13.0', connection: 'jev', driver: 'jev', cases: 600 });
    const text = readFileSync(file, 'utf8');

    const second = await cli(['eval', 'refund-abuse', `--dataset=${DATASET}`, `--lock=${file}`, '--json']);
    expect(second.code).toBe(0);
    const withoutDate = (lock: string) => lock.replace(/"calibratedAt": "[^"]+"/g, '"calibratedAt": "…"');
    expect(withoutDate(readFileSync(file, 'utf8'))).toBe(withoutDate(text));
    // The demo's committed lock was written the same way, from the same dataset (beside the simulator's OpenAI mode).
    const committed = CalibrationLock.read(join(ROOT, 'apps/support-desk/judgment.lock.json'));
    const demo = committed.entry('refund-abuse', 'RefundDecision', '2');
    const undated = (identity: object | undefined) => ({ ...identity, calibratedAt: '…' });
    expect(demo?.thresholds).toEqual(entry?.thresholds);
    expect(undated(demo?.identities.find((identity) => identity.model === 'jev-1.13.0'))).toEqual(
      undated(entry?.identities[0]),
    );
  });

  it('refuses to update a file that is not a calibration lock, naming it, and leaves it as it was', async () => {
    const file = join(dir, 'not-a-lock.json');
    writeFileSync(file, '{"name":"my-app"}\n');
    const run = await cli(['eval', 'refund-abuse', `--dataset=${DATASET}`, `--lock=${file}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `The calibration lock ${relative(ROOT, file)} (field kind) is not a nestjs-judgment calibration lock`,
    );
    expect(readFileSync(file, 'utf8')).toBe('{"name":"my-app"}\n');
  });
});

/** Writes resolved audits of automatic Outcomes under the demo lock's identity of refund-abuse. */
async function audits(agreeing: number, disagreeing: number): Promise<void> {
  const locked = CalibrationLock.read(join(ROOT, 'apps/support-desk/judgment.lock.json'));
  const identity = locked.entry('refund-abuse', 'RefundDecision', '2')!.identities[0];
  const db = await new DataSource({
    ...PG,
    database: DATABASE,
    entities: judgmentEntities,
    migrations: judgmentMigrations,
  }).initialize();
  try {
    await db.runMigrations(); // when the suite's other tests did not boot the demo (which runs them) first
    const repository = db.getRepository(AssessmentRecord);
    await repository.delete({ judgment: 'refund-abuse' });
    const row = (auditResolution: string) =>
      repository.create({
        judgment: 'refund-abuse',
        evidenceFingerprint: 'e'.repeat(64),
        untrustedPaths: [],
        questionsFingerprint: identity.questions,
        answers: { abusive: 0.1 },
        engine: 'jev',
        model: identity.model,
        decision: 'RefundDecision',
        decisionVersion: '2',
        outcomeType: 'RefundOutcome',
        outcome: 'approve',
        auditRequestedAt: new Date(),
        auditResolution,
        auditResolverType: 'Agent',
        auditResolverId: 'alice',
        auditedAt: new Date(),
      });
    await repository.save([
      ...Array.from({ length: agreeing }, () => row('approve')),
      ...Array.from({ length: disagreeing }, () => row('reject')),
    ]);
  } finally {
    await db.destroy();
  }
}

describe('judgment audit', () => {
  it('reports the audited accuracy beside the lock’s and exits 0 while it holds', async () => {
    await audits(40, 0);
    const run = await cli(['audit', 'refund-abuse', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.dropped).toBe(false);
    expect(report.agreements[0]).toMatchObject({ decision: 'RefundDecision', audits: 40, agreed: 40, accuracy: 1 });
    expect(report.agreements[0].lockedInterval.low).toBeGreaterThan(0.9);
  });

  it('says "inconclusive (n = 7)" rather than "ok" when too few audits to say the accuracy holds', async () => {
    await audits(7, 0);
    const run = await cli(['audit', 'refund-abuse']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('inconclusive (n = 7)');
    expect(run.stdout).not.toMatch(/│ ok +│/);
    expect(run.stdout).toContain('Inconclusive: 1 of 1 identity has fewer than 30 audits');
    // The lock is named relative to the current folder: no absolute path in the output.
    expect(run.stdout).toContain('Compared with the calibration lock apps/support-desk/judgment.lock.json.');
    expect(run.stdout).not.toContain(ROOT);
    const json = JSON.parse((await cli(['audit', 'refund-abuse', '--json'])).stdout);
    expect(json.lock).toBe('apps/support-desk/judgment.lock.json');
    expect(json.agreements[0]).toMatchObject({ audits: 7, dropped: false, inconclusive: true });
    const file = join(dir, 'audit-few.html');
    await cli(['audit', 'refund-abuse', `--html=${file}`]);
    expect(readFileSync(file, 'utf8')).not.toContain(ROOT);
    await viewReport(file, 'audit-report-inconclusive.png', async (page) => {
      expect(await page.locator('.verdict').textContent()).toMatch(/^Inconclusive: 1 of 1 identity/);
      expect(await page.locator('svg text', { hasText: 'n = 7 (inconclusive)' }).count()).toBe(1);
      expect(await overlappingTexts(page)).toEqual([]);
    });
  });

  it('gives the prediction-powered error rate beside the plain one, naming the estimator and its assumption', async () => {
    // 300 automatic Outcomes of the window with answers of varied doubt; every third audited, the doubtful ones wrong.
    const locked = CalibrationLock.read(join(ROOT, 'apps/support-desk/judgment.lock.json'));
    const identity = locked.entry('refund-abuse', 'RefundDecision', '2')!.identities[0];
    const db = await new DataSource({ ...PG, database: DATABASE, entities: judgmentEntities }).initialize();
    try {
      const repository = db.getRepository(AssessmentRecord);
      await repository.delete({ judgment: 'refund-abuse' });
      await repository.save(
        Array.from({ length: 300 }, (_, i) =>
          repository.create({
            judgment: 'refund-abuse',
            evidenceFingerprint: 'e'.repeat(64),
            untrustedPaths: [],
            questionsFingerprint: identity.questions,
            answers: { abusive: (i % 10) * 0.05 },
            engine: 'jev',
            model: identity.model,
            decision: 'RefundDecision',
            decisionVersion: '2',
            outcomeType: 'RefundOutcome',
            outcome: 'approve',
            ...(i % 3 === 0
              ? {
                  auditRequestedAt: new Date(),
                  auditResolution: i % 10 >= 8 ? 'reject' : 'approve',
                  auditResolverType: 'Agent',
                  auditResolverId: 'alice',
                  auditedAt: new Date(),
                }
              : {}),
          }),
        ),
      );
    } finally {
      await db.destroy();
    }
    const run = await cli(['audit', 'refund-abuse', '--json']);
    const report = JSON.parse(run.stdout);
    expect(report.predictionPowered.method).toContain('prediction-powered inference (Angelopoulos');
    expect(report.predictionPowered.assumption).toContain('uniform random sample of the automatic Outcomes');
    const [agreement] = report.agreements;
    expect(agreement).toMatchObject({ audits: 100, agreed: 80 });
    const powered = agreement.predictionPowered;
    expect(powered).toMatchObject({ audits: 100, automatic: 300, errors: 20, confidence: 0.95 });
    expect(powered.interval.low).toBeLessThan(powered.estimate);
    expect(powered.estimate).toBeLessThan(powered.interval.high);
    expect(powered.estimate).toBeGreaterThan(0.1);
    const text = await cli(['audit', 'refund-abuse']);
    expect(text.stdout).toContain('Error rate, audits alone (Wilson 95%)');
    expect(text.stdout).toMatch(
      /│ 20\.0% \([\d.]+%–[\d.]+%\) +│ [\d.]+% \([\d.]+%–[\d.]+%\), 100 audits \+ 300 automatic/,
    );
    expect(text.stdout).toContain('Assumption: The audits are a uniform random sample');
  });

  it('gives no prediction-powered interval from too few errors, and says why', async () => {
    await audits(40, 0);
    const run = await cli(['audit', 'refund-abuse', '--json']);
    expect(JSON.parse(run.stdout).agreements[0].predictionPowered).toEqual({
      estimate: null,
      reason: 'too few for a normal interval (n = 40, 0 wrong; it needs 30 audits with at least 5 wrong and 5 right)',
    });
  });

  it('exits 1 when the audited interval lies wholly below the lock’s', async () => {
    await audits(20, 20);
    const run = await cli(['audit', 'refund-abuse']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('DROPPED');
    expect(run.stdout).toContain('50.0%');
  });

  it('--html writes one self-contained page: the audited interval beside the lock’s, and the verdict', async () => {
    await audits(20, 20);
    const file = join(dir, 'audit.html');
    const run = await cli(['audit', 'refund-abuse', `--html=${file}`]);
    expect(run.code).toBe(1); // the page is written and the exit code still gates
    await viewReport(file, 'audit-report.png', async (page) => {
      expect(await page.locator('h1').textContent()).toBe('Audits of refund-abuse');
      expect(await page.locator('.verdict').textContent()).toMatch(/^DROPPED: /);
      expect(await page.locator('svg line[stroke="#c7243a"]').count()).toBe(1); // the audited interval, dropped
      expect(await page.locator('svg line[stroke="#9aa3b5"]').count()).toBe(1); // the lock's interval
      expect(await page.locator('td', { hasText: '50.0% (' }).count()).toBe(1);
      expect(await page.locator('svg text', { hasText: 'accuracy of automatic Outcomes' }).count()).toBe(1);
      // Round ticks, evenly spaced, up to 100 %.
      const ticks = (await page.locator('svg text.tick').allTextContents()).map((tick) => Number(tick.slice(0, -2)));
      expect(ticks[ticks.length - 1]).toBe(100);
      expect(new Set(ticks.slice(1).map((tick, i) => tick - ticks[i])).size).toBe(1);
      expect(ticks.every((tick) => tick % 5 === 0)).toBe(true);
      expect(await overlappingTexts(page)).toEqual([]);
    });
    expect(readFileSync(file, 'utf8')).not.toContain(ROOT);
  });
});

describe('judgment audit --plan', () => {
  it('answers with no audit yet: 299 clean audits for 1 % at 95 %, and "no data" for the estimate', async () => {
    await audits(0, 0);
    const run = await cli(['audit', 'refund-abuse', '--plan', '--max-error', '0.01', '--json']);
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout);
    expect(plan).toMatchObject({ target: { maxError: 0.01, confidence: 0.95 }, days: 30, cleanAuditsNeeded: 299 });
    expect(plan.identities).toEqual([]);
    expect(plan.method).toContain('Clopper–Pearson');
    const text = await cli(['audit', 'refund-abuse', '--plan', '--max-error', '0.05']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('With none wrong this takes 59 audits.');
    expect(text.stdout).toContain('the estimate has no data');
  });

  it('counts every audit, and says how many more at the current errors and the rate that gets them in time', async () => {
    await audits(149, 1); // 150 audits, over a page of 100; each is also an automatic Outcome of today's traffic
    const run = await cli(['audit', 'refund-abuse', '--plan', '--max-error', '0.01', '--days', '10', '--json']);
    expect(run.code).toBe(0);
    const [identity] = JSON.parse(run.stdout).identities;
    expect(identity).toMatchObject({
      decision: 'RefundDecision',
      decisionVersion: '2',
      audits: 150,
      errors: 1,
      cleanAuditsNeeded: 299,
      auditsNeeded: 473, // one error found: 473 in all at 1 % / 95 %
      moreAudits: 323,
      met: false,
      automaticPerDay: 150, // 150 automatic Outcomes within the last day
      days: 10,
    });
    expect(identity.auditRate).toBeCloseTo(323 / 1500, 12);
    const text = await cli(['audit', 'refund-abuse', '--plan', '--max-error', '0.01', '--days', '10']);
    expect(text.stdout).toMatch(
      /│ RefundDecision v2 │ jev-1\.13\.0 │ 150 \(1\) +│ 0\.7% \(≤ [\d.]+%\) +│ 473 +│ 323 +│ 150\.0 +│ 21\.6% +│/,
    );
    // The plain audit reads every audit too.
    expect(JSON.parse((await cli(['audit', 'refund-abuse', '--json'])).stdout).agreements[0].audits).toBe(150);
  });

  it('refuses a target outside (0, 1) and --plan without a target as usage errors (exit 2)', async () => {
    const outside = await cli(['audit', 'refund-abuse', '--plan', '--max-error', '1.5']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('maxError (--max-error) must be a number strictly between 0 and 1');
    const zero = await cli(['audit', 'refund-abuse', '--plan', '--max-error', '0.01', '--confidence', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('confidence (--confidence) must be a number strictly between 0 and 1');
    const missing = await cli(['audit', 'refund-abuse', '--plan']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--plan needs --max-error <share>');
  });
});

describe('judgment eval --html', () => {
  it('writes one self-contained page that renders in Chromium with its charts and no console error', async () => {
    const file = join(dir, 'report.html');
    const run = await suggest('0.05', '0.95', `--html=${file}`);
    expect(run.code).toBe(0);
    await viewReport(file, 'calibration-report.png', async (page) => {
      expect(await page.locator('svg').count()).toBeGreaterThanOrEqual(3); // reliability, bands, frontier
      expect(await page.locator('figcaption', { hasText: 'Reliability of abusive' }).count()).toBe(1);
      expect(await page.locator('figcaption', { hasText: 'Frontier' }).count()).toBe(1);
      // Every chart has both axis titles (the band charts name the tenths under each band instead of x ticks).
      const titles = await page.locator('svg text.axis-title').allTextContents();
      expect(titles).toEqual(
        expect.arrayContaining(['predicted probability (mean of the bin)', 'observed share true']),
      );
      expect(titles).toContain('answer to abusive (tenths of the probability or confidence)');
      expect(titles).toContain('review rate (share of cases sent to Review)');
      expect(titles).toContain('error bound (95.0% confidence)');
      // Band charts: ten labelled tenths, a count under each, empty ones hatched apart from 0 % bars.
      const abusive = page.locator('figure', { hasText: 'per band of abusive' }).locator('svg');
      expect(await abusive.locator('text.tick', { hasText: '–' }).count()).toBe(10);
      expect(await abusive.locator('text.band-count').count()).toBe(10);
      const counts = (await abusive.locator('text.band-count').allTextContents()).map((t) => Number(t.slice(4)));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(600);
      expect(await abusive.locator('rect.empty-band').count()).toBe(counts.filter((n) => n === 0).length);
      expect(await abusive.locator('text.zero').count()).toBeGreaterThan(0); // bands none of which went to Review
      // The frontier is a curve, with the chosen point, the current thresholds and the target line.
      expect(await page.locator('polyline.frontier').count()).toBe(1);
      expect(await page.locator('circle.chosen').count()).toBe(1);
      expect(await page.locator('path.current').count()).toBe(1);
      expect(await page.locator('line.target').count()).toBe(1);
      expect(await page.locator('svg text', { hasText: 'target: error ≤ 5.0%' }).count()).toBe(1);
      expect(await overlappingTexts(page)).toEqual([]);
      for (const [index, chart] of (await page.locator('figure').all()).entries()) {
        await chart.screenshot({ path: screenshotPath(`calibration-report-figure-${index + 1}.png`) });
      }
    });
    expect(readFileSync(file, 'utf8')).not.toContain(ROOT);
  });
});
