// `judgment eval --suggest --lock` on a Judgment with an escalation cascade (issue 33, point 4), as a real process
// against two simulators over real HTTP: the cheap tier on the OpenAI mode, the strong tier on the Jev wire. Every tier
// is asked each labelled case once (the simulators count the requests), every tier's thresholds are chosen together,
// the report puts the cascade beside each tier alone, the lock holds every tier, and the drift guard checks each tier
// against its own locked model. Bad input is refused before any Engine is asked.
//
// The labelled cases: a claim is fraudulent with probability 0.3; the cheap tier answers sigmoid(1.2·s + N(0, 1))
// (steered through the `[[p=…]]` marker, which the OpenAI mode reads), the strong tier sigmoid(3.0·s + N(0, 1)) (the
// `[[noul:fraud=…]]` marker, which the Jev wire reads first), s = +1 for a fraudulent claim and −1 otherwise.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AwaitingReview } from 'nestjs-judgment';
import { CalibrationLock } from 'nestjs-judgment/calibration';
import {
  type RunningJevSimulator,
  type RunningOpenAiSimulator,
  startJevSimulator,
  startOpenAiSimulator,
} from 'nestjs-judgment/simulator';
import { mulberry32 } from '../../libs/judgment/src/fingerprint/seeded-random';
import { type Harness, startApp } from '../judge/support';
import {
  CHEAP_KEY,
  Claim,
  ClaimOutcome,
  ClaimTriage,
  PRICES,
  STRONG_KEY,
  CASCADE_DATABASE,
  cascadeOptions,
} from './cascade-cli.app';

const ROOT = join(__dirname, '..', '..');
const CASES = 400;
const dir = mkdtempSync(join(tmpdir(), 'cascade-cli-'));
const DATASET = join(dir, 'claims.json');
const LOCK = join(dir, 'judgment.lock.json');

let cheap: RunningOpenAiSimulator;
let strong: RunningJevSimulator;
let harness: Harness | undefined;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The cascade app's `judgment` command line, as a child process (the simulators answer from this one). */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', './scripts/register.js', 'test/calibration/cascade-cli.ts', ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          CASCADE_CHEAP_URL: cheap.url,
          CASCADE_STRONG_URL: strong.url,
          CASCADE_DB: join(dir, 'records.sqlite'),
          ...env,
        },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const suggest = (...more: string[]) =>
  cli([
    'eval',
    'claim-triage',
    `--dataset=${DATASET}`,
    '--suggest',
    '--max-error',
    '0.1',
    '--confidence',
    '0.9',
    ...more,
  ]);

/** Decision requests each simulator received (chat completions; Jev rounds). */
const asked = () => ({
  cheap: cheap.requests.filter((request) => request.path === '/v1/chat/completions').length,
  strong: strong.requests.filter((request) => request.path === '/v1/systemone').length,
});

/** A claim whose text steers the cheap tier to `cheapP` and the strong tier to `strongP`. */
const claimText = (label: string, cheapP: number, strongP: number) =>
  `${label} [[p=${cheapP.toFixed(3)}]] [[noul:fraud=${strongP.toFixed(3)}]]`;

beforeAll(async () => {
  cheap = await startOpenAiSimulator({ apiKey: CHEAP_KEY });
  strong = await startJevSimulator({ apiKey: STRONG_KEY });
  const random = mulberry32(5);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
  const cases = Array.from({ length: CASES }, (_, index) => {
    const fraud = random() < 0.3;
    const s = fraud ? 1 : -1;
    const text = claimText(`Claim ${index}.`, sigmoid(1.2 * s + normal()), sigmoid(3 * s + normal()));
    return { subject: { text }, expected: fraud ? ClaimOutcome.Refuse : ClaimOutcome.Pay };
  });
  writeFileSync(DATASET, JSON.stringify(cases));
});

beforeEach(() => {
  cheap.clearLog();
  strong.clearLog();
});

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

afterAll(async () => {
  await cheap?.stop();
  await strong?.stop();
});

describe('judgment eval --suggest on a cascade', () => {
  it('asks every tier each case once, chooses every tier’s thresholds together, and locks every tier', async () => {
    const run = await suggest('--json', `--lock=${LOCK}`);
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
    // One request per case and tier, however many joint candidates were tried: nothing asked or paid twice.
    expect(asked()).toEqual({ cheap: CASES, strong: CASES });

    const { report, suggestions, cascade } = JSON.parse(run.stdout);
    expect(suggestions).toEqual([]);
    expect(report.results.map((r: { identity: { model: string } }) => r.identity.model).sort()).toEqual([
      'jev-1.13.0',
      'sim-4o-2026-09-17',
    ]);
    expect(cascade.tiers).toMatchObject([
      { tier: 1, connection: 'cheap', driver: 'openai', model: 'sim-4o-2026-09-17', currency: 'USD' },
      { tier: 2, connection: 'strong', driver: 'jev', model: 'jev-1.13.0', currency: 'USD' },
    ]);
    const { result } = cascade;
    expect(result.method).toContain('Learn then Test over the joint candidates');
    expect(result.assumption).toContain('exchangeable');
    expect(result.cases).toBe(CASES);
    expect(result.jointCandidates).toBe(cascade.tiers[0].candidates * cascade.tiers[1].candidates);
    const { chosen } = result;
    expect(chosen.certified).toBe(true);
    expect(chosen.errorBound).toBeLessThanOrEqual(0.1);
    // Per tier: the share decided, the escalation rate and the cost per decision at the tiers' declared prices.
    const [first, second] = chosen.tiers;
    expect(first.reached).toBe(1);
    expect(first.costPerDecision).toBeCloseTo(PRICES.cheap, 12);
    expect(second.reached).toBeCloseTo(first.escalationRate, 12);
    expect(second.costPerDecision).toBeCloseTo(PRICES.strong * second.reached, 12);
    expect(first.decided + second.decided + chosen.reviewRate).toBeCloseTo(1, 12);
    for (const tier of chosen.tiers) {
      expect(tier.thresholds.refuse - tier.thresholds.pay).toBeGreaterThanOrEqual(0.1 - 1e-9);
    }
    // Beside it, each tier alone at the same target: the strong tier alone costs its full price per decision.
    expect(result.alone.map((tier: { name: string }) => tier.name)).toEqual(['cheap', 'strong']);
    const [cheapAlone, strongAlone] = result.alone;
    expect(strongAlone.costPerDecision).toBeCloseTo(PRICES.strong, 12);
    expect(cheapAlone.costPerDecision).toBeCloseTo(PRICES.cheap, 12);
    expect(strongAlone.chosen?.certified ?? strongAlone.statement).toBeTruthy();
    expect(chosen.costPerDecision).toBeLessThan(strongAlone.costPerDecision / 2);

    // The lock holds every tier's identity, with the thresholds it decides with now.
    const entry = CalibrationLock.read(LOCK).entry('claim-triage', 'claim-decision', '1');
    expect(entry?.thresholds).toEqual({ refuse: 0.65, pay: 0.35 });
    expect(entry?.cascade).toEqual([
      {
        tier: 1,
        connection: 'cheap',
        driver: 'openai',
        model: 'sim-4o-2026-09-17',
        thresholds: { refuse: 0.85, pay: 0.15 },
      },
      { tier: 2, connection: 'strong', driver: 'jev', model: 'jev-1.13.0', thresholds: { refuse: 0.6, pay: 0.4 } },
    ]);
    expect(entry?.identities.map((identity) => [identity.connection, identity.model]).sort()).toEqual([
      ['cheap', 'sim-4o-2026-09-17'],
      ['strong', 'jev-1.13.0'],
    ]);
  }, 120_000);

  it('prints per tier the share decided, the escalation rate and the cost, beside each tier alone, within a review cap', async () => {
    const run = await suggest('--max-review', '0.2');
    expect(run.code).toBe(0);
    expect(asked()).toEqual({ cheap: CASES, strong: CASES });
    expect(run.stdout).toContain('Suggested cascade thresholds · claim-triage · claim-decision v1 · 2 tiers');
    expect(run.stdout).toContain(
      'Target: error of automatic Outcomes across the cascade ≤ 10.0% with 90.0% confidence, review rate ≤ 20.0%; ' +
        'minimising the cost per decision.',
    );
    expect(run.stdout).toContain('Method: Learn then Test over the joint candidates');
    expect(run.stdout).toMatch(/│ Tier │ Connection │ Model\s+│ Thresholds\s+│ Asked\s+│ Decided │ Escalation rate/);
    expect(run.stdout).toMatch(/│ 1\s+│ cheap\s+│ sim-4o-2026-09-17 │ \{ refuse: [\d.]+, pay: [\d.]+ \}/);
    expect(run.stdout).toMatch(/→ tier 2\s+│ 0\.0001 USD/);
    expect(run.stdout).toMatch(/│ cascade, chosen\s+│/);
    expect(run.stdout).toMatch(/│ cheap alone\s+│/);
    expect(run.stdout).toMatch(/│ strong alone\s+│ (\{ refuse|no threshold certifies 10 % at 90 %)/);
    expect(run.stdout).toContain("{ connection: 'strong', thresholds: { refuse: ");
  }, 120_000);

  it('refuses bad input before any Engine is asked: a tier without a price, cases without labels, unknown thresholds', async () => {
    const noPrice = await cli(
      ['eval', 'claim-triage', `--dataset=${DATASET}`, '--suggest', '--max-error', '0.1', '--confidence', '0.9'],
      { CASCADE_UNPRICED: 'strong' },
    );
    expect(noPrice.code).toBe(1);
    expect(noPrice.stderr).toContain(
      'Tier 2 of claim-triage ("strong") declares no price, so the cost per decision cannot be minimised: declare ' +
        'engines.strong.price',
    );
    expect(noPrice.stderr).toContain('--objective review');

    const unlabelled = join(dir, 'unlabelled.json');
    writeFileSync(unlabelled, JSON.stringify([{ subject: { text: 'A claim.' } }]));
    const noLabels = await cli([
      'eval',
      'claim-triage',
      `--dataset=${unlabelled}`,
      '--suggest',
      '--max-error',
      '0.1',
      '--confidence',
      '0.9',
    ]);
    expect(noLabels.code).toBe(1);
    expect(noLabels.stderr).toContain('names no expected Outcome: give "expected"');

    const badBand = await suggest('--band', 'pay:hold');
    expect(badBand.code).toBe(1);
    expect(badBand.stderr).toContain('names "hold", but claim-decision (tier 1, "cheap") declares no such threshold');

    const badObjective = await suggest('--objective', 'speed');
    expect(badObjective.stderr).toContain("objective (--objective) must be 'cost' or 'review'");

    expect(asked()).toEqual({ cheap: 0, strong: 0 });
  }, 120_000);
});

describe('the drift guard on a locked cascade', () => {
  it('checks each tier against its own locked model: a tier whose model changed goes to Review with cause drift', async () => {
    // The lock of the first test (run it if this one runs alone).
    if (!CalibrationLock.readOrEmpty(LOCK).entry('claim-triage', 'claim-decision', '1')) {
      expect((await cli(['eval', 'claim-triage', `--dataset=${DATASET}`, `--lock=${LOCK}`])).code).toBe(0);
      cheap.clearLog();
      strong.clearLog();
    }
    harness = await startApp({
      typeOrm: CASCADE_DATABASE,
      options: cascadeOptions({ CASCADE_CHEAP_URL: cheap.url, CASCADE_STRONG_URL: strong.url, CASCADE_LOCK: LOCK }),
      judgments: [ClaimTriage],
    });
    const claim = (text: string) => new ClaimTriage(Object.assign(new Claim(), { text }));

    // Under the locked identities both tiers decide: the strong tier's own thresholds are the locked ones.
    expect(await (await harness.judge.assess(claim(claimText('Sure.', 0.99, 0.99)))).outcome()).toBe('refuse');
    expect(await (await harness.judge.assess(claim(claimText('Unsure.', 0.5, 0.95)))).outcome()).toBe('refuse');
    expect(asked()).toEqual({ cheap: 2, strong: 1 });

    // The strong tier's provider ships another model: its decisions go to Review; the cheap tier's still act.
    strong.setModel('jev-1.14.0');
    const drifted = await (await harness.judge.assess(claim(claimText('Unsure again.', 0.5, 0.95)))).outcome();
    expect(drifted).toBeInstanceOf(AwaitingReview);
    expect(drifted).toMatchObject({ outcome: 'refuse', reason: { cause: 'drift' } });
    expect((drifted as AwaitingReview<string>).reason.text).toContain(
      'tier 2 ("strong") of claim-triage answered with the model jev-1.14.0, but it was calibrated with jev-1.13.0',
    );
    expect(await (await harness.judge.assess(claim(claimText('Sure again.', 0.01, 0.01)))).outcome()).toBe('pay');

    const records = await harness.records();
    expect(records.filter((record) => record.reviewCause === 'drift').map((record) => record.model)).toEqual([
      'jev-1.14.0',
    ]);
    strong.setModel('jev-1.13.0');
  }, 120_000);
});
