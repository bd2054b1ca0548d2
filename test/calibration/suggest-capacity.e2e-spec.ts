// `judgment eval --suggest --max-reviews-per-day N` as a real process (issue 32, point 4): the review load at the
// traffic recorded in PostgreSQL (decisions per day over the last 7 days) is a bound beside the error target.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AssessmentRecord, judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { PG, databaseUrl, recreateDatabase } from '../support/postgres';

const ROOT = join(__dirname, '..', '..');
const DATABASE = 'judgment_calib_capacity';
const DATASET = 'apps/support-desk/datasets/refund-abuse.calibration.json';

function suggest(...more: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        '-r',
        './scripts/register.js',
        'apps/support-desk/src/cli.ts',
        'eval',
        'refund-abuse',
        `--dataset=${DATASET}`,
        '--suggest',
        '--max-error',
        '0.05',
        '--confidence',
        '0.95',
        ...more,
      ],
      { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl(DATABASE) }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/**
 * Records `perDay` decisions of refund-abuse a day over the last `days` days (one in ten sent to Review), plus old
 * ones and another Judgment's, which the traffic must not count.
 */
async function traffic(perDay: number, days: number): Promise<void> {
  const db = await new DataSource({
    ...PG,
    database: DATABASE,
    entities: judgmentEntities,
    migrations: judgmentMigrations,
  }).initialize();
  try {
    await db.runMigrations();
    const repository = db.getRepository(AssessmentRecord);
    await db.query('DELETE FROM judgment_assessments');
    const row = (judgment: string, index: number) =>
      repository.create({
        judgment,
        evidenceFingerprint: 'e'.repeat(64),
        untrustedPaths: [],
        questionsFingerprint: 'q',
        answers: { abusive: 0.1 },
        engine: 'jev',
        model: 'jev-1.13.0',
        decision: 'RefundDecision',
        decisionVersion: '2',
        outcomeType: 'RefundOutcome',
        outcome: index % 10 === 0 ? 'escalate' : 'approve',
        reviewRequestedAt: index % 10 === 0 ? new Date() : null,
      });
    const saved = await repository.save([
      ...Array.from({ length: perDay * days }, (_, index) => row('refund-abuse', index)),
      ...Array.from({ length: 50 }, (_, index) => row('other-judgment', index)),
    ]);
    const ids = saved.filter((r) => r.judgment === 'refund-abuse').map((r) => r.id);
    // Spread over the window (the oldest a minute inside it), then 300 more 20 days ago.
    await db.query(
      `UPDATE judgment_assessments SET created_at = now() - ((ord % $2 + 1) * interval '1 day') + interval '1 minute'
         FROM (SELECT id AS rid, row_number() OVER (ORDER BY id) AS ord FROM judgment_assessments WHERE id = ANY($1))
           AS numbered WHERE id = numbered.rid`,
      [ids, days],
    );
    await repository.save(Array.from({ length: 300 }, (_, index) => row('refund-abuse', index)));
    await db.query(
      `UPDATE judgment_assessments SET created_at = now() - interval '20 days' WHERE judgment = 'refund-abuse' AND NOT (id = ANY($1))`,
      [ids],
    );
  } finally {
    await db.destroy();
  }
}

beforeAll(() => recreateDatabase(DATABASE));

describe('judgment eval --suggest --max-reviews-per-day', () => {
  it('goes on without the capacity when no traffic is recorded, and says it cannot be checked', async () => {
    const plain = JSON.parse((await suggest('--json')).stdout).suggestions[0];
    const run = await suggest('--max-reviews-per-day', '5', '--json');
    expect(run.code).toBe(0);
    const [suggestion] = JSON.parse(run.stdout).suggestions;
    expect(suggestion.capacity).toMatchObject({ maxReviewsPerDay: 5, traffic: null, maxReviewRate: null });
    expect(suggestion.capacity.statement).toContain('cannot be checked without recorded traffic');
    expect(suggestion.chosen.thresholds).toEqual(plain.chosen.thresholds);
    const text = await suggest('--max-reviews-per-day', '5');
    expect(text.stdout).toContain('Capacity (5 reviews a day) cannot be checked without recorded traffic');
  });

  it('holds the choice to the capacity at the recorded traffic (7 days), and says so', async () => {
    await traffic(200, 7); // 1,400 decisions over the last 7 days: 200 a day
    const free = JSON.parse((await suggest('--json')).stdout).suggestions[0];
    const freeLoad = free.chosen.reviewRate * 200;
    expect(freeLoad).toBeGreaterThan(4);
    // Room for the free choice: unchanged, with its load.
    const roomy = JSON.parse((await suggest('--max-reviews-per-day', String(Math.ceil(freeLoad) + 1), '--json')).stdout)
      .suggestions[0];
    expect(roomy.capacity.traffic.decisions).toBe(1400); // not the older ones, nor another Judgment's
    expect(roomy.capacity.traffic.days).toBeCloseTo(7, 2);
    expect(roomy.capacity.traffic.perDay).toBeCloseTo(200, 0);
    expect(roomy.chosen.thresholds).toEqual(free.chosen.thresholds);
    expect(roomy.capacity.chosenReviewsPerDay).toBeCloseTo(free.chosen.reviewRate * roomy.capacity.traffic.perDay, 9);
    // Less room: never a candidate above it.
    const max = Math.floor(freeLoad / 2);
    const run = await suggest('--max-reviews-per-day', String(max), '--json');
    const held = JSON.parse(run.stdout).suggestions[0];
    expect(held.capacity.maxReviewRate).toBeCloseTo(max / held.capacity.traffic.perDay, 12);
    // The free choice already sends the fewest of the certified candidates to Review: none is left within half.
    expect(run.code).toBe(1);
    expect(held.chosen).toBeNull();
    expect(held.verdict).toContain('The capacity binds');
    const text = await suggest('--max-reviews-per-day', String(max));
    expect(text.stdout).toContain(
      `Capacity: ${max} reviews a day at the recorded traffic of 200 decisions a day (1400 over the last 7 days`,
    );
    expect(text.stdout).toMatch(/Reviews\/day/);
    expect(text.stdout).toMatch(/\(over \d+\)/);
  });

  it('names the capacity as what binds, and by how much, when it leaves no certified candidate', async () => {
    await traffic(200, 7);
    const run = await suggest('--max-reviews-per-day', '0.5', '--json');
    expect(run.code).toBe(1);
    const [suggestion] = JSON.parse(run.stdout).suggestions;
    expect(suggestion.chosen).toBeNull();
    expect(suggestion.nextVersion).toBeNull();
    expect(suggestion.verdict).toContain('The error target alone is met');
    expect(suggestion.verdict).toMatch(
      /The capacity binds: the certified candidate sending the fewest cases to Review, \{.*\}, sends [\d.]+ % of 200 decisions a day, about [\d.]+ reviews a day — [\d.]+ above the capacity of 0\.5/,
    );
  });

  it.each(['0', '-3', 'many'])('refuses a capacity of %p as a usage error naming the option', async (value) => {
    const run = await suggest(`--max-reviews-per-day=${value}`);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-reviews-per-day');
    expect(run.stderr).toContain('a number above 0 such as 40');
  });

  it('refuses --max-reviews-per-day without --suggest as a usage error', async () => {
    const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          '-r',
          './scripts/register.js',
          'apps/support-desk/src/cli.ts',
          'eval',
          'refund-abuse',
          `--dataset=${DATASET}`,
          '--max-reviews-per-day',
          '40',
        ],
        { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl(DATABASE) } },
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
      );
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-reviews-per-day goes with --suggest');
  });
});
