// `judgment audit` (text and --json) and `judgment status --json` report the reviewers' agreement on N-of-M votes
// (issue 30, point 5): raw agreement and Cohen's kappa per Judgment and per reviewer pair, with the counts they rest
// on. The support desk's CLI, a real process, against PostgreSQL; the votes are rows of judgment_review_votes as
// `resolve()` writes them (the voting itself is tested in test/review/review-votes.e2e-spec.ts).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { PG, databaseUrl, recreateDatabase } from '../support/postgres';

const ROOT = join(__dirname, '..', '..');
const DATABASE = 'judgment_reviewer_agreement_cli';

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', './scripts/register.js', 'apps/support-desk/src/cli.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl(DATABASE) }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  await recreateDatabase(DATABASE);
  const db = await new DataSource({
    ...PG,
    database: DATABASE,
    entities: judgmentEntities,
    migrations: judgmentMigrations,
  }).initialize();
  try {
    await db.runMigrations();
    // The textbook table: 20 approve/approve, 5 approve/reject, 10 reject/approve, 15 reject/reject (pₒ .7, pₑ .5,
    // κ .4) between alice (first) and bob, on 50 refund-abuse cases; one pair on post-moderation.
    const pairs = [
      ...Array.from({ length: 20 }, () => ['approve', 'approve']),
      ...Array.from({ length: 5 }, () => ['approve', 'reject']),
      ...Array.from({ length: 10 }, () => ['reject', 'approve']),
      ...Array.from({ length: 15 }, () => ['reject', 'reject']),
    ];
    const insert =
      'INSERT INTO judgment_review_votes (record_id, judgment, reviewer_type, reviewer_id, outcome) VALUES ';
    for (const [index, [first, second]] of pairs.entries()) {
      await db.query(`${insert} ($1, 'refund-abuse', 'agent', 'alice', $2), ($1, 'refund-abuse', 'agent', 'bob', $3)`, [
        index + 1,
        first,
        second,
      ]);
    }
    await db.query(
      `${insert} (1000, 'post-moderation', 'agent', 'alice', 'publish'), (1000, 'post-moderation', 'agent', 'carol', 'remove')`,
    );
  } finally {
    await db.destroy();
  }
}, 60_000);

it('judgment audit prints raw agreement and kappa per Judgment and per pair, with the counts; --json has them', async () => {
  const text = await cli(['audit', 'refund-abuse']);
  expect(text.stderr).toBe('');
  expect(text.stdout).toContain("Reviewer agreement (N-of-M votes): raw agreement and Cohen's kappa");
  expect(text.stdout).toMatch(/│ refund-abuse +│ 50 +│ 50 +│ 70\.0 % +│ 0\.400 +│/);
  expect(text.stdout).toMatch(/│ refund-abuse +│ agent #alice and agent #bob +│ 50 +│ 70\.0 % +│ 0\.400 +│/);
  expect(text.stdout).not.toContain('post-moderation'); // only the Judgment audited

  const json = JSON.parse((await cli(['audit', 'refund-abuse', '--json'])).stdout);
  expect(json.reviewerAgreement.problem).toBeNull();
  expect(json.reviewerAgreement.judgments).toEqual([
    {
      judgment: 'refund-abuse',
      records: 50,
      pairs: 50,
      rawAgreement: expect.closeTo(0.7, 12),
      kappa: expect.closeTo(0.4, 12),
    },
  ]);
  expect(json.reviewerAgreement.pairs).toEqual([
    {
      judgment: 'refund-abuse',
      reviewers: ['agent #alice', 'agent #bob'],
      pairs: 50,
      rawAgreement: expect.closeTo(0.7, 12),
      kappa: expect.closeTo(0.4, 12),
    },
  ]);
}, 60_000);

it('judgment status --json carries every Judgment’s agreement figures', async () => {
  const run = await cli(['status', '--json']);
  const status = JSON.parse(run.stdout);
  expect(status.reviewerAgreement.problem).toBeNull();
  expect(
    status.reviewerAgreement.judgments.map((row: { judgment: string; pairs: number }) => [row.judgment, row.pairs]),
  ).toEqual([
    ['post-moderation', 1],
    ['refund-abuse', 50],
  ]);
  // One pair that disagrees, each side with one Outcome: raw agreement 0, kappa 0 (pₑ 0).
  expect(status.reviewerAgreement.pairs[0]).toEqual({
    judgment: 'post-moderation',
    reviewers: ['agent #alice', 'agent #carol'],
    pairs: 1,
    rawAgreement: 0,
    kappa: 0,
  });
}, 60_000);
