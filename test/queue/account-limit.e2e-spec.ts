// The account's limit without 429s (issue 34, point 4), on real Redis and PostgreSQL: an account that enforces its
// limit as a token bucket (test/queue/token-bucket.proxy.ts in front of the Jev simulator over HTTP), two worker
// processes, Judgments offered at 3× the limit. Told the account's bucket (`limits.burst`), the queue keeps the
// account near its limit without a 429 after the first second, and every Judgment is decided. The longer run, beside
// the configurations without `burst`, is bench/account-limit.bench.ts.
import { freshDatabase } from './queue.fixtures';
import { runAccountLimit } from './account-limit.fixture';

const DATABASE = 'judgment_account_limit_e2e';
jest.setTimeout(120_000);

beforeAll(async () => {
  await freshDatabase(DATABASE);
});

const account = {
  database: DATABASE,
  perMinute: 600,
  burst: 10,
  offered: 3,
  offerSeconds: 4,
  workers: 2,
  concurrency: 8,
};

it("paced to the account's bucket, two worker processes keep it near its limit with no 429 and lose nothing", async () => {
  const report = await runAccountLimit({ ...account, limits: { requestsPerMinute: 600, burst: 10 } });
  // The whole report is shown when an expectation fails.
  expect(report).toMatchObject({ refused429AfterFirstSecond: 0, failedJobs: 0, lost: 0, decided: 120 });
  // How near the limit it stays is the bench's figure (0.98 over longer runs, bench:account-limit), not a timed test's:
  // on a loaded CI machine the workers' CPU, not the pacing, can set the rate. Here only that pacing does not starve it.
  expect({ atLeastHalf: report.sustainedRatio >= 0.5, report }).toEqual({ atLeastHalf: true, report });
});

it('the account refuses what a per-minute window lets through (the proxy is a real limit)', async () => {
  const report = await runAccountLimit({ ...account, limits: { requestsPerMinute: 600 } });
  expect({ refused: report.refused429AfterFirstSecond > 0, report }).toEqual({ refused: true, report });
  // The 429s pause the queue and the jobs go back to wait: nothing is lost either way.
  expect(report.lost).toBe(0);
});
