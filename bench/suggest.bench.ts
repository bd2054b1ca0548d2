/**
 * Threshold suggestion: 1,000 answered cases × 2,601 candidate thresholds (a 51 × 51 grid, of which the suggestion
 * tests the 1,081 that keep the Review band escalate–reject at least 0.1 wide), Learn then Test included, against a
 * baseline in the same run: the 2.6 million pure decide() calls of the whole grid in a bare loop. Prints both, their
 * ratio, and the machine load; fails when the suggestion takes 5 s or more.
 * Run: npm run bench:suggest
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type Assessment, Decision, Evidence, Judgment, Likelihood, withThresholds } from 'nestjs-judgment';
import { Assessment as AssessmentValue } from '../libs/judgment/src/assessment/assessment';
import { Provenance } from '../libs/judgment/src/assessment/provenance';
import { COMPUTE_ONLY, applyDecision } from '../libs/judgment/src/decision/apply-decision';
import { decisionMetadata } from '../libs/judgment/src/decision/decision.decorator';
import { readQuestions } from '../libs/judgment/src/questions/question';
import { candidateGrid, suggestThresholds } from '../libs/judgment/src/calibration/threshold-suggestion';

const CASES = 1_000;
const LIMIT_MS = 5_000;

enum Outcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Judgment({ name: 'bench-claim', decision: () => ClaimDecision })
class Claim implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { claim: Evidence.untrusted(this.text) };
  }
  questions() {
    return { fraud: Likelihood.that('Is this claim fraudulent?') };
  }
}

@Decision({ outcomes: Outcome, review: [Outcome.Escalate], version: '1' })
class ClaimDecision implements Decision<Claim, Outcome> {
  readonly thresholds = { reject: 0.7, escalate: 0.3 };
  decide(assessment: Assessment<Claim>): Outcome {
    const fraud = assessment.likelihood('fraud');
    if (fraud.above(this.thresholds.reject)) return Outcome.Reject;
    if (fraud.above(this.thresholds.escalate)) return Outcome.Escalate;
    return Outcome.Approve;
  }
}

let seed = 7;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

const questions = readQuestions('bench-claim', new Claim('').questions());
const cases = Array.from({ length: CASES }, (_, index) => {
  const u = random();
  const p = random() < 0.5 ? u * u : 1 - u * u;
  const judgment = new Claim(`claim ${index}`);
  const assessment = AssessmentValue.fromAnswers(
    judgment,
    questions,
    { fraud: p },
    new Provenance('bench', 'bench-1.0.0'),
    COMPUTE_ONLY,
  );
  return { assessment, expected: random() < p ? Outcome.Reject : Outcome.Approve };
});
const decision = new ClaimDecision();
const metadata = decisionMetadata(ClaimDecision);
const identity = {
  questions: 'bench',
  model: 'bench-1.0.0',
  decision: metadata.name,
  decisionVersion: '1',
  language: null,
};
const grid = candidateGrid(metadata.name, decision.thresholds);

function baseline(): number {
  let automatic = 0;
  for (const values of grid) {
    const candidate = withThresholds(decision, values);
    for (const { assessment } of cases)
      if (applyDecision(assessment, candidate, false) !== Outcome.Escalate) automatic++;
  }
  return automatic;
}

function suggest() {
  return suggestThresholds(decision, metadata, identity, cases, { maxError: 0.1, confidence: 0.95 });
}

/** The same with a review capacity at a recorded traffic (issue 32, point 4): 60 reviews a day of 400 decisions. */
function suggestWithCapacity() {
  return suggestThresholds(decision, metadata, identity, cases, {
    maxError: 0.1,
    confidence: 0.95,
    maxReviewsPerDay: 60,
    traffic: { perDay: 400, decisions: 2800, days: 7 },
  });
}

// Warm up both, then time them alternately.
baseline();
suggest();
suggestWithCapacity();
const rounds = 3;
const times = { baseline: [] as number[], suggest: [] as number[], capacity: [] as number[] };
let capacityChosen: unknown = null;
let chosen: unknown = null;
let tested = 0;
for (let round = 0; round < rounds; round++) {
  let start = performance.now();
  baseline();
  times.baseline.push(performance.now() - start);
  start = performance.now();
  const suggestion = suggest();
  chosen = suggestion.chosen?.thresholds ?? null;
  tested = suggestion.candidates;
  times.suggest.push(performance.now() - start);
  start = performance.now();
  capacityChosen = suggestWithCapacity().chosen?.thresholds ?? null;
  times.capacity.push(performance.now() - start);
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = median(times.baseline);
const full = median(times.suggest);
const capacity = median(times.capacity);
console.log(`cases ${CASES}, candidates ${grid.length}, decide() calls ${CASES * grid.length}`);
console.log(`baseline (bare decide loop): ${base.toFixed(0)} ms`);
console.log(`suggestThresholds (tallies + Learn then Test): ${full.toFixed(0)} ms  (limit ${LIMIT_MS} ms)`);
console.log(`ratio suggest / baseline: ${(full / base).toFixed(2)}`);
console.log(
  `suggestThresholds with --max-reviews-per-day 60 at 400 decisions a day: ${capacity.toFixed(0)} ms  (limit ${LIMIT_MS} ms), ratio to the plain suggestion ${(capacity / full).toFixed(2)}, chosen ${JSON.stringify(capacityChosen)}`,
);
console.log(`candidates tested (those keeping the Review band at least minBand wide): ${tested}`);
console.log(`chosen: ${JSON.stringify(chosen)}`);
console.log(
  `load average (1, 5, 15 min): ${loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')}`,
);
if (full >= LIMIT_MS || capacity >= LIMIT_MS) {
  console.error(`Too slow: ${Math.max(full, capacity).toFixed(0)} ms ≥ ${LIMIT_MS} ms.`);
  process.exitCode = 1;
}
