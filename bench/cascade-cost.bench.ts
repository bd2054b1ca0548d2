/**
 * The escalation cascade's cost (issue 33, point 5): a calibrated cascade — a cheap, noisier model first, a strong one
 * at 20 times its price when the cheap one is unsure, a person last — against the strong tier alone and the cheap tier
 * alone, at the same certified error target, side by side in one run.
 *
 * - Cases: CASES synthetic labelled claims (default 4,000), each "fraud" with probability PREVALENCE (0.3), drawn from
 *   a seeded PRNG; each text carries its truth and its case key (`[[truth=true]] [[case=c17]]`).
 * - Two simulator connections over real HTTP (loopback, in this process), with the simulator's noise around the truth
 *   (libs/judgment/src/simulator/README.md): `cheap`, the OpenAI mode, model sim-mini-2026-09-17, NOISE_PROFILES.cheap
 *   (q ~ Beta(4, 1), flip 3 %), price 0.0001 USD per request; `strong`, the Jev mode, model jev-1.13.0,
 *   NOISE_PROFILES.strong (q ~ Beta(10, 1), flip 0.5 %), price 0.002 USD per request (20 times the cheap one).
 *   Noise seed NOISE_SEED; the models' draws coupled by a Gaussian copula of correlation ρ, run at ρ = 0 (independent
 *   errors) and ρ = 0.5 (a case one model is unsure of is more often one the other is unsure of).
 * - Every tier is asked every case once through the library (judge.attempt, PostgreSQL records): the probability and
 *   the cost each record carries (price × its paid requests) are what the calibration reads.
 * - Calibration on the first half of the cases (suggestCascade of nestjs-judgment/calibration: Learn then Test over the
 *   joint thresholds, minimising cost per decision, at max error MAX_ERROR with confidence CONFIDENCE; each tier alone
 *   at the same target, with the fewest reviews); evaluation on the held-out second half: each configuration's
 *   figures from the answers asked once, and the chosen cascade run live on the held-out cases (judge.assess, then
 *   outcome(): the library escalates), its records read back — its decisions and cost must equal the offline figures.
 *
 * Run: npm run bench:cascade-cost [-- CASES]   (PostgreSQL on JUDGMENT_TEST_PG_PORT, default 5432)
 */
import { loadavg } from 'node:os';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { getRepositoryToken } from '@nestjs/typeorm';
import {
  type Assessment,
  AssessmentRecord,
  Decision,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  Likelihood,
  judgmentEntities,
  judgmentMigrations,
} from 'nestjs-judgment';
import { NOISE_PROFILES, startJevSimulator, startOpenAiSimulator } from 'nestjs-judgment/simulator';
import { DataSource, type Repository } from 'typeorm';
import {
  type CascadePoint,
  type CascadeTierCandidate,
  VERDICT,
  bandCandidates,
  suggestCascade,
} from '../libs/judgment/src/calibration/cascade-suggestion';
import { mulberry32 } from '../libs/judgment/src/fingerprint/seeded-random';
import { PG, recreateDatabase } from './support/bench';

const CASES = Number(process.argv[2] ?? 4_000);
const PREVALENCE = 0.3;
const CASE_SEED = 20_261_202;
const NOISE_SEED = 7;
const SPLIT_SEED = 1;
const CORRELATIONS = [0, 0.5];
const MAX_ERROR = 0.05;
const CONFIDENCE = 0.9;
const CONCURRENCY = 16;
const CHEAP_MODEL = 'sim-mini-2026-09-17';
const STRONG_MODEL = 'jev-1.13.0';
const PRICES = { cheap: 0.0001, strong: 0.002 } as const;
const DATABASE = 'judgment_bench_cascade_cost';

enum ClaimOutcome {
  Pay = 'pay',
  Check = 'check',
  Refuse = 'refuse',
}

/** Refuse at or above `refuse`, pay below `pay`, a person (or the next tier) in between. */
@Decision({ outcomes: ClaimOutcome, review: [ClaimOutcome.Check], name: 'bench-claim-decision', version: '1' })
class ClaimDecision implements Decision<Claim, ClaimOutcome> {
  readonly thresholds = { refuse: 0.65, pay: 0.35 };
  decide(assessment: Assessment<Claim>): ClaimOutcome {
    const fraud = assessment.likelihood('fraud');
    if (fraud.above(this.thresholds.refuse)) return ClaimOutcome.Refuse;
    if (fraud.above(this.thresholds.pay)) return ClaimOutcome.Check;
    return ClaimOutcome.Pay;
  }
}

class Claim implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { claim: Evidence.untrusted(this.text) };
  }
  questions() {
    return { fraud: Likelihood.that('Is this insurance claim fraudulent?') };
  }
}

/** The claim asked of one connection: how every tier is asked every case once. */
@Judgment({ name: 'bench-claim-cheap', decision: ClaimDecision, engine: 'cheap' })
class CheapClaim extends Claim {}
@Judgment({ name: 'bench-claim-strong', decision: ClaimDecision, engine: 'strong' })
class StrongClaim extends Claim {}

type Thresholds = { readonly refuse: number; readonly pay: number };
type Tier = 'cheap' | 'strong';

/** One tier's answers to every case: the probability of fraud and the cost its record carries. */
interface Answers {
  readonly p: Float64Array;
  readonly cost: Float64Array;
}

/** The labelled cases: truth per case, and the text the Engines see. */
function makeCases(): { labels: boolean[]; texts: string[] } {
  const random = mulberry32(CASE_SEED);
  const labels = Array.from({ length: CASES }, () => random() < PREVALENCE);
  const texts = labels.map(
    (fraud, index) =>
      `Claim c${index}: water damage in the kitchen, repair invoice attached. [[case=c${index}]] [[truth=${fraud}]]`,
  );
  return { labels, texts };
}

/** Runs `work(i)` for i in [0, count), CONCURRENCY at a time. */
async function pool(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** The candidates of the claim Decision over the 0.05 grid, read as it reads them (`fraud.above(refuse)`, then `pay`). */
function decisionCandidates(p: ArrayLike<number>, labels: readonly boolean[]): CascadeTierCandidate[] {
  return bandCandidates(p, labels, { names: { lower: 'pay', upper: 'refuse' } });
}

function verdict(p: number, fraud: boolean, { refuse, pay }: Thresholds): number {
  if (p >= refuse) return fraud ? VERDICT.right : VERDICT.wrong;
  if (p >= pay) return VERDICT.band;
  return fraud ? VERDICT.wrong : VERDICT.right;
}

/** What a configuration (tiers in order, each with its thresholds) comes to on `cases`. */
interface Figures {
  readonly costPerDecision: number;
  /** Per tier: share of the cases it decided, and share of the cases reaching it it passed on. */
  readonly decided: number[];
  readonly escalation: number[];
  readonly reviewRate: number;
  readonly reviews: number;
  readonly automatic: number;
  readonly wrong: number;
  /** Per case: 'tier:outcome' or 'review', to compare with the live run. */
  readonly paths: Map<number, string>;
}

function evaluate(
  tiers: ReadonlyArray<{ tier: Tier; thresholds: Thresholds }>,
  answers: Record<Tier, Answers>,
  labels: readonly boolean[],
  cases: readonly number[],
): Figures {
  const decided = tiers.map(() => 0);
  const reached = tiers.map(() => 0);
  let cost = 0;
  let wrong = 0;
  let review = 0;
  const paths = new Map<number, string>();
  for (const i of cases) {
    let settled = false;
    for (const [k, { tier, thresholds }] of tiers.entries()) {
      reached[k]++;
      cost += answers[tier].cost[i];
      const v = verdict(answers[tier].p[i], labels[i], thresholds);
      if (v === VERDICT.band) continue;
      decided[k]++;
      if (v === VERDICT.wrong) wrong++;
      const refused = answers[tier].p[i] >= thresholds.refuse;
      paths.set(i, `${tier}:${refused ? ClaimOutcome.Refuse : ClaimOutcome.Pay}`);
      settled = true;
      break;
    }
    if (!settled) {
      review++;
      paths.set(i, 'review');
    }
  }
  const automatic = decided.reduce((sum, count) => sum + count, 0);
  return {
    costPerDecision: cost / cases.length,
    decided: decided.map((count) => count / cases.length),
    escalation: reached.map((count, k) => (count === 0 ? 0 : (count - decided[k]) / count)),
    reviewRate: review / cases.length,
    reviews: review,
    automatic,
    wrong,
    paths,
  };
}

async function startApp(judgments: Function[], urls: Record<Tier, string>) {
  @Module({
    imports: [
      TypeOrmModule.forRoot({ ...PG, database: DATABASE, entities: judgmentEntities, retryAttempts: 0 }),
      JudgmentModule.forRoot({
        engine: 'strong',
        engines: {
          cheap: {
            driver: 'openai',
            url: urls.cheap,
            model: CHEAP_MODEL,
            retries: 0,
            price: { perRequest: PRICES.cheap },
          },
          strong: {
            driver: 'jev',
            url: urls.strong,
            model: STRONG_MODEL,
            retries: 0,
            price: { perRequest: PRICES.strong },
          },
        },
        log: false,
      }),
      JudgmentModule.forFeature(judgments as never),
    ],
  })
  class CascadeBenchModule {}
  return NestFactory.createApplicationContext(CascadeBenchModule, { logger: ['error'] });
}

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
const usd = (value: number) => `$${value.toFixed(6)}`;

function printTable(rows: Array<[string, Figures]>, strongCost: number): void {
  const header = [
    'configuration',
    'cost/decision',
    'vs strong',
    'decided cheap',
    'decided strong',
    'escalated',
    'review rate',
    'realised error',
  ];
  const lines = rows.map(([name, f]) => {
    const byTier = name.startsWith('cascade')
      ? f.decided
      : name.startsWith('cheap')
        ? [f.decided[0], 0]
        : [0, f.decided[0]];
    return [
      name,
      usd(f.costPerDecision),
      `${(f.costPerDecision / strongCost).toFixed(3)}×`,
      pct(byTier[0]),
      pct(byTier[1]),
      name.startsWith('cascade') ? pct(f.escalation[0]) : '—',
      `${(f.reviewRate * 100).toFixed(2)} % (${f.reviews})`,
      f.automatic === 0 ? '— (none automatic)' : `${pct(f.wrong / f.automatic)} (${f.wrong}/${f.automatic})`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
  const show = (cells: string[]) => `  ${cells.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`.trimEnd();
  console.log(show(header));
  console.log(show(widths.map((w) => '-'.repeat(w))));
  for (const line of lines) console.log(show(line));
}

const thresholdsOf = (point: CascadePoint | null, k: number): Thresholds | null =>
  point === null ? null : (point.tiers[k].thresholds as unknown as Thresholds);

async function runAt(correlation: number, labels: boolean[], texts: string[]): Promise<void> {
  const started = Date.now();
  console.log(
    `\n=== correlation ρ = ${correlation} (load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}) ===`,
  );
  await recreateDatabase(DATABASE);
  const migrate = await new DataSource({ ...PG, database: DATABASE, migrations: judgmentMigrations }).initialize();
  await migrate.runMigrations();
  await migrate.destroy();
  const noise = {
    profiles: { [CHEAP_MODEL]: NOISE_PROFILES.cheap, [STRONG_MODEL]: NOISE_PROFILES.strong },
    seed: NOISE_SEED,
    correlation,
  };
  const cheapSim = await startOpenAiSimulator({ noise, model: CHEAP_MODEL, logRequests: false });
  const strongSim = await startJevSimulator({ noise, logRequests: false });
  const urls = { cheap: cheapSim.url, strong: strongSim.url };

  // Every tier asked every case once.
  const app = await startApp([CheapClaim, StrongClaim], urls);
  const judge = app.get(Judge);
  const answers: Record<Tier, Answers> = {
    cheap: { p: new Float64Array(CASES), cost: new Float64Array(CASES) },
    strong: { p: new Float64Array(CASES), cost: new Float64Array(CASES) },
  };
  for (const [tier, Asked] of [
    ['cheap', CheapClaim],
    ['strong', StrongClaim],
  ] as const) {
    await pool(CASES, async (i) => {
      const { result, record } = await judge.attempt(new Asked(texts[i]));
      answers[tier].p[i] = (result as Assessment<Claim>).likelihood('fraud').probability;
      if (record?.cost == null) throw new Error(`The ${tier} record of case ${i} carries no cost.`);
      answers[tier].cost[i] = Number(record.cost);
    });
  }
  await app.close();
  const askedSeconds = (Date.now() - started) / 1000;

  // Calibration on the first half, evaluation on the held-out second half.
  const half = Math.floor(CASES / 2);
  const heldOut = Array.from({ length: CASES - half }, (_, i) => half + i);
  const slice = (tier: Tier) => ({
    p: answers[tier].p.subarray(0, half),
    cost: answers[tier].cost.subarray(0, half),
  });
  const calibrationLabels = labels.slice(0, half);
  const tiers = (['cheap', 'strong'] as const).map((tier) => ({
    name: tier,
    candidates: decisionCandidates(slice(tier).p, calibrationLabels),
    costs: slice(tier).cost,
  }));
  const target = { maxError: MAX_ERROR, confidence: CONFIDENCE, seed: SPLIT_SEED };
  const result = suggestCascade(tiers, target);
  console.log(result.verdict);
  console.log(
    `Calibration: ${result.cases} cases (learn ${result.learnCases}, test ${result.testCases}), ` +
      `${result.jointCandidates} joint candidates, ${result.sequence.ordered} ordered, ${result.sequence.certified} certified.`,
  );
  const cheapAlone = result.alone[0].chosen;
  const strongAlone = result.alone[1].chosen;
  // The same search with the review rate capped at the strong tier alone's (measured on the calibration set; the cap
  // must be above 0, so a strong tier reviewing nothing caps it at 1e-9, i.e. no review).
  const capped = strongAlone
    ? suggestCascade(tiers, { ...target, maxReviewRate: Math.max(strongAlone.reviewRate, 1e-9) }).chosen
    : null;
  const same = (a: CascadePoint | null, b: CascadePoint | null) =>
    JSON.stringify(a?.tiers.map((t) => t.thresholds)) === JSON.stringify(b?.tiers.map((t) => t.thresholds));
  const cascades: Array<[string, CascadePoint | null]> = same(result.chosen, capped)
    ? [["cascade, min cost (= review ≤ strong's)", result.chosen]]
    : [
        ['cascade, min cost', result.chosen],
        ["cascade, review ≤ strong's", capped],
      ];
  for (const [name, point] of [...cascades, ['strong alone', strongAlone], ['cheap alone', cheapAlone]] as const) {
    const shown =
      point === null
        ? 'no thresholds certify the target'
        : `${point.tiers.map((t) => `${t.name} ${JSON.stringify(t.thresholds)}`).join(' → ')}; on the calibration ` +
          `set: cost ${usd(point.costPerDecision ?? NaN)}, review ${pct(point.reviewRate)}, error ` +
          `${point.observedError === null ? '—' : pct(point.observedError)} (Clopper–Pearson bound ${pct(point.errorBound)} at ${CONFIDENCE})`;
    console.log(`  ${name}: ${shown}`);
  }

  // The held-out figures, from the answers asked once. A configuration no threshold certifies sends every case to
  // Review after asking its tier: its cost is still paid.
  const none = { refuse: 2, pay: -1 };
  const strongFigures = evaluate(
    [{ tier: 'strong', thresholds: thresholdsOf(strongAlone, 0) ?? none }],
    answers,
    labels,
    heldOut,
  );
  const rows: Array<[string, Figures]> = [];
  const checks: Array<[string, CascadePoint, Figures]> = [];
  for (const [name, point] of cascades) {
    if (point === null) continue;
    const figures = evaluate(
      [
        { tier: 'cheap', thresholds: thresholdsOf(point, 0)! },
        { tier: 'strong', thresholds: thresholdsOf(point, 1)! },
      ],
      answers,
      labels,
      heldOut,
    );
    rows.push([name, figures]);
    checks.push([name, point, figures]);
  }
  rows.push([`strong alone${strongAlone ? '' : ' (uncertified: all to Review)'}`, strongFigures]);
  rows.push([
    `cheap alone${cheapAlone ? '' : ' (uncertified: all to Review)'}`,
    evaluate([{ tier: 'cheap', thresholds: thresholdsOf(cheapAlone, 0) ?? none }], answers, labels, heldOut),
  ]);
  console.log(`\nHeld-out cases (${heldOut.length}), target: error ≤ ${MAX_ERROR} with confidence ${CONFIDENCE}:`);
  printTable(rows, strongFigures.costPerDecision);

  for (const [name, point, figures] of checks) {
    const ratio = figures.costPerDecision / strongFigures.costPerDecision;
    const goal = ratio <= 0.5 && figures.reviewRate <= strongFigures.reviewRate;
    console.log(
      `${name}: cost ratio to strong alone ${ratio.toFixed(3)} (${pct(1 - ratio)} lower); reviews ` +
        `${figures.reviews} vs ${strongFigures.reviews}. Goal (≥ 50 % lower at an equal or lower ` +
        `review rate): ${goal ? 'met' : 'NOT met'}.`,
    );
    await liveCascade(name, point, urls, texts, heldOut, figures);
  }
  await cheapSim.stop();
  await strongSim.stop();
  console.log(
    `(asking both tiers every case: ${askedSeconds.toFixed(1)} s; this correlation in all: ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
}

/** Deletes the live cascade's records of an earlier run in the same database. */
async function clearLiveRecords(): Promise<void> {
  const db = await new DataSource({ ...PG, database: DATABASE }).initialize();
  await db.query(`DELETE FROM judgment_assessments WHERE judgment = 'bench-claim-cascade'`);
  await db.destroy();
}

/**
 * The chosen cascade run live on the held-out cases: a Judgment declaring it, asked with judge.assess() and decided
 * with outcome() (the library asks the strong tier when the cheap one decides in the band); its records read back.
 */
async function liveCascade(
  name: string,
  chosen: CascadePoint,
  urls: Record<Tier, string>,
  texts: string[],
  heldOut: readonly number[],
  offline: Figures,
): Promise<void> {
  await clearLiveRecords();
  class CascadeClaim extends Claim {}
  Judgment({
    name: 'bench-claim-cascade',
    decision: ClaimDecision,
    cascade: [
      { connection: 'cheap', thresholds: thresholdsOf(chosen, 0)! },
      { connection: 'strong', thresholds: thresholdsOf(chosen, 1)! },
    ],
  })(CascadeClaim);
  const app = await startApp([CascadeClaim], urls);
  const judge = app.get(Judge);
  const live = new Map<number, string>();
  await pool(heldOut.length, async (n) => {
    const i = heldOut[n];
    const assessment = (await judge.assess(new CascadeClaim(texts[i]))) as Assessment<CascadeClaim>;
    const decided = await assessment.outcome();
    live.set(i, typeof decided === 'string' ? decided : 'review');
  });
  const records = await app
    .get<Repository<AssessmentRecord>>(getRepositoryToken(AssessmentRecord))
    .find({ where: { judgment: 'bench-claim-cascade' } });
  await app.close();
  const cost = records.reduce((sum, record) => sum + Number(record.cost ?? NaN), 0);
  const byTier = [1, 2].map(
    (tier) =>
      records.filter(
        (r) =>
          (r.provenanceDetails?.cascade as { tier?: number } | undefined)?.tier === tier &&
          r.decisionTrace?.escalated === undefined &&
          r.reviewRequestedAt === null,
      ).length,
  );
  let mismatches = 0;
  for (const i of heldOut) {
    const path = offline.paths.get(i)!;
    const outcome = path === 'review' ? 'review' : path.split(':')[1];
    if (live.get(i) !== outcome) mismatches++;
  }
  console.log(
    `  live (${name}) on the held-out cases: ${records.length} records (${heldOut.length} cheap, ` +
      `${records.length - heldOut.length} strong), cost per decision ${usd(cost / heldOut.length)} ` +
      `(offline ${usd(offline.costPerDecision)}), decided by cheap ${pct(byTier[0] / heldOut.length)}, by strong ` +
      `${pct(byTier[1] / heldOut.length)}; Outcomes differing from the offline evaluation: ${mismatches}.`,
  );
  if (mismatches > 0 || Math.abs(cost / heldOut.length - offline.costPerDecision) > 1e-9) {
    process.exitCode = 1;
    console.log('The live cascade does not reproduce the offline figures.');
  }
}

async function main(): Promise<void> {
  if (!(CASES >= 2_000)) throw new Error(`CASES must be at least 2,000; got ${process.argv[2]}.`);
  const { labels, texts } = makeCases();
  const positives = labels.filter(Boolean).length;
  console.log(
    `bench:cascade-cost — ${CASES} cases (${positives} fraud, prevalence ${PREVALENCE}, case seed ${CASE_SEED}), ` +
      `noise seed ${NOISE_SEED}, split seed ${SPLIT_SEED}; cheap ${CHEAP_MODEL} (openai mode) Beta(` +
      `${NOISE_PROFILES.cheap.a}, ${NOISE_PROFILES.cheap.b}) flip ${NOISE_PROFILES.cheap.flip} at $${PRICES.cheap}/request; ` +
      `strong ${STRONG_MODEL} (jev mode) Beta(${NOISE_PROFILES.strong.a}, ${NOISE_PROFILES.strong.b}) flip ` +
      `${NOISE_PROFILES.strong.flip} at $${PRICES.strong}/request.`,
  );
  for (const correlation of CORRELATIONS) await runAt(correlation, labels, texts);
  console.log(
    `\nload after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
