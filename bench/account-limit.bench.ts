// The account's limit without 429s (issue 34, point 4). An Engine account enforces 1,200 requests/min as a token
// bucket of 20 (a proxy in front of the Jev simulator answers 429 when the bucket is empty); two worker processes on
// one Redis; Judgments offered at 3× the limit for BENCH_SECONDS (default 15), then every one waited for. Side by side
// in one run, what the connection is told:
//   - window-60s: `limits: { requestsPerMinute: 1200 }` (what the README said before `burst`);
//   - window-1s:  `limits: { requestsPerMinute: 1200, windowSeconds: 1 }`;
//   - burst:      `limits: { requestsPerMinute: 1200, burst: 20 }` (the queue paced to the account's bucket).
// Prints the forwarded rate ÷ the limit, the 429s after the first second, and the Judgments lost (not decided).
// Real Redis and PostgreSQL (JUDGMENT_TEST_REDIS_PORT / JUDGMENT_TEST_PG_PORT).   npm run bench:account-limit
import { loadavg } from 'node:os';
import { freshDatabase } from '../test/queue/queue.fixtures';
import { runAccountLimit } from '../test/queue/account-limit.fixture';

const DATABASE = 'judgment_bench_account_limit';
const PER_MINUTE = 1200;
const BURST = 20;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const VARIANTS: Record<string, object> = {
  'window-60s': { requestsPerMinute: PER_MINUTE },
  'window-1s': { requestsPerMinute: PER_MINUTE, windowSeconds: 1 },
  burst: { requestsPerMinute: PER_MINUTE, burst: BURST },
};

async function main() {
  await freshDatabase(DATABASE);
  const only = process.env.BENCH_VARIANTS?.split(',');
  const results: Record<string, unknown> = {};
  for (const [name, limits] of Object.entries(VARIANTS)) {
    if (only && !only.includes(name)) continue;
    results[name] = {
      limits,
      ...(await runAccountLimit({
        database: DATABASE,
        perMinute: PER_MINUTE,
        burst: BURST,
        limits,
        offered: 3,
        offerSeconds: SECONDS,
        workers: 2,
        concurrency: 16,
      })),
    };
  }
  const load = loadavg().map((n) => n.toFixed(2));
  console.log(JSON.stringify({ account: { perMinute: PER_MINUTE, burst: BURST }, load, ...results }, null, 2));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
