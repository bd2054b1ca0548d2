/**
 * The prediction-powered audit estimate over 100,000 automatic Outcomes (each one's predicted error read from its
 * recorded answers, then the PPI mean estimator with 2,000 of them audited), against a baseline in the same run: a
 * bare loop summing one number of each answers object. Prints both, their ratio, and the machine load; fails when the
 * estimate takes 1 s or more. Reading the rows from the database is not included (see bench:review-list).
 * Run: npm run bench:audit-estimator
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  type AuditedPrediction,
  predictedError,
  predictionPoweredErrorRate,
} from '../libs/judgment/src/calibration/prediction-powered';

const AUTOMATIC = 100_000;
const AUDITED_EVERY = 50;
const LIMIT_MS = 1_000;
const RUNS = 5;

let state = 1;
const next = () => (state = (state * 48_271) % 2_147_483_647) / 2_147_483_647;
const rows = Array.from({ length: AUTOMATIC }, (_, i) => ({
  answers: {
    abusive: next(),
    flags: { spam: next() * 0.1, threat: next() * 0.05 },
    credibility: { level: 2, confidence: next() },
  },
  wrong: i % AUDITED_EVERY === 0 ? next() < 0.05 : null,
}));

function estimate(): number {
  const predictions: number[] = [];
  const audited: AuditedPrediction[] = [];
  for (const row of rows) {
    const predicted = predictedError(row.answers);
    predictions.push(predicted);
    if (row.wrong !== null) audited.push({ predicted, wrong: row.wrong });
  }
  return predictionPoweredErrorRate(predictions, audited, 0.95)!.estimate;
}

function baseline(): number {
  let sum = 0;
  for (const row of rows) sum += row.answers.abusive;
  return sum;
}

function median(fn: () => number): number {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

const estimator = median(estimate);
const bare = median(baseline);
const [load] = loadavg();
process.stdout.write(
  `audit estimator over ${AUTOMATIC.toLocaleString('en')} automatic Outcomes (${AUTOMATIC / AUDITED_EVERY} audited): ` +
    `${estimator.toFixed(1)} ms (median of ${RUNS}); bare loop ${bare.toFixed(2)} ms; ratio ` +
    `${(estimator / bare).toFixed(0)}×; load average ${load.toFixed(2)}\n`,
);
if (estimator >= LIMIT_MS) {
  process.stderr.write(`The estimate took ${estimator.toFixed(0)} ms, over the ${LIMIT_MS} ms budget.\n`);
  process.exitCode = 1;
}
