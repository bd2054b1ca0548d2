// `judgment eval <judgment> --fit-temperature --from-resolutions` as a real process of the demo (issue 32, point 5):
// the temperature of a logprob connection refitted per identity from resolved Reviews and audits in PostgreSQL, with
// the small-sample rule of --fit-temperature, and another identity's resolutions kept apart.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AssessmentRecord, judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { CalibrationLock, type TemperatureSample, fitTemperature } from 'nestjs-judgment/calibration';
import { PG, databaseUrl, recreateDatabase } from '../support/postgres';

const ROOT = join(__dirname, '..', '..');
const DATABASE = 'judgment_refit_resolutions';

function evalCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', './scripts/register.js', 'apps/support-desk/src/cli.ts', 'eval', 'refund-abuse', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl(DATABASE) }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** A small seeded PRNG, so the seeded records are the same every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** The truths each model's resolutions give, as the fit sees them: [yes, no] masses and the truth. */
const expected: Record<string, TemperatureSample[]> = {};

/**
 * `count` resolved cases of refund-abuse answered by `model` on the openai connection: the true chance q of abuse is
 * drawn, the person's Outcome follows it (reject when abusive, approve when not), and the model's masses are
 * over-confident (q³ against (1 − q)³), so the fitted temperature is above 1. Every fifth is an audit of an automatic
 * Outcome instead of a Review; `escalations` more are resolved to escalate (no truth can be read from them).
 */
function cases(
  repository: ReturnType<DataSource['getRepository']>,
  subjectId: string,
  questions: string,
  model: string,
  count: number,
  seed: number,
  escalations = 0,
): AssessmentRecord[] {
  const draw = random(seed);
  expected[model] = [];
  const rows: AssessmentRecord[] = [];
  for (let i = 0; i < count + escalations; i++) {
    const q = 0.05 + 0.9 * draw();
    const abusive = draw() < q;
    const yes = q ** 3 / (q ** 3 + (1 - q) ** 3);
    const escalated = i >= count;
    const label = escalated ? 'escalate' : abusive ? 'reject' : 'approve';
    if (!escalated) expected[model].push({ yes, no: 1 - yes, truth: abusive });
    const audit = !escalated && i % 5 === 0;
    rows.push(
      repository.create({
        judgment: 'refund-abuse',
        evidenceFingerprint: 'e'.repeat(64),
        untrustedPaths: [],
        questionsFingerprint: questions,
        subjectType: 'Refund',
        subjectId,
        answers: { abusive: Math.round(yes * 1e6) / 1e6, credibility: [0, 0, 0.2, 0.8] },
        engine: 'openai',
        model,
        provenanceDetails: { masses: { abusive: [yes, 1 - yes] } },
        decision: 'RefundDecision',
        decisionVersion: '2',
        outcomeType: 'RefundOutcome',
        outcome: audit ? 'approve' : 'escalate',
        ...(audit
          ? {
              auditRequestedAt: new Date(),
              auditResolution: label,
              auditResolverType: 'Agent',
              auditResolverId: 'a',
              auditedAt: new Date(),
            }
          : {
              reviewRequestedAt: new Date(),
              resolution: label,
              resolverType: 'Agent',
              resolverId: 'alice',
              resolvedAt: new Date(),
            }),
      }) as AssessmentRecord,
    );
  }
  return rows;
}

beforeAll(async () => {
  await recreateDatabase(DATABASE);
  // Boots the demo once on the empty database: its migrations create the records' and the refunds' tables.
  expect((await evalCli('--fit-temperature', '--from-resolutions')).stdout).toContain('Nothing to fit');
  const locked = CalibrationLock.read(join(ROOT, 'apps/support-desk/judgment.lock.json'));
  const questions = locked.entry('refund-abuse', 'RefundDecision', '2')!.identities[0].questions;
  const db = await new DataSource({
    ...PG,
    database: DATABASE,
    entities: judgmentEntities,
    migrations: judgmentMigrations,
  }).initialize();
  try {
    await db.runMigrations();
    // The Subject the Decision reads (refundsThisYear 0: not a frequent refunder).
    const [refund] = await db.query(
      `INSERT INTO refunds (item, amount_eur, explanation, refunds_this_year) VALUES ('Kettle', 20, 'It came late.', 0)
       RETURNING id`,
    );
    const subject = String(refund.id);
    const repository = db.getRepository(AssessmentRecord);
    await repository.save([
      ...cases(repository, subject, questions, 'sim-4o-2026-09-17', 150, 11, 10),
      ...cases(repository, subject, questions, 'sim-4o-2026-11-20', 40, 12),
      // The Jev simulator records no masses; an expiry is not a person's label.
      repository.create({
        judgment: 'refund-abuse',
        evidenceFingerprint: 'e'.repeat(64),
        untrustedPaths: [],
        questionsFingerprint: questions,
        answers: { abusive: 0.5 },
        engine: 'jev',
        model: 'jev-1.13.0',
        decision: 'RefundDecision',
        decisionVersion: '2',
        outcome: 'escalate',
        reviewRequestedAt: new Date(),
        resolution: 'approve',
        resolverType: 'Agent',
        resolverId: 'alice',
        resolvedAt: new Date(),
      }),
      repository.create({
        judgment: 'refund-abuse',
        evidenceFingerprint: 'e'.repeat(64),
        untrustedPaths: [],
        questionsFingerprint: questions,
        answers: { abusive: 0.5 },
        engine: 'openai',
        model: 'sim-4o-2026-09-17',
        provenanceDetails: { masses: { abusive: [0.999, 0.001] } },
        decision: 'RefundDecision',
        decisionVersion: '2',
        outcome: 'escalate',
        reviewRequestedAt: new Date(),
        resolution: 'approve',
        resolverType: 'system',
        resolverId: 'deadline',
        resolvedAt: new Date(),
      }),
    ]);
  } finally {
    await db.destroy();
  }
});

describe('judgment eval --fit-temperature --from-resolutions', () => {
  it('refits per identity from resolved Reviews and audits, never mixing identities, with the small-sample rule', async () => {
    const run = await evalCli('--fit-temperature', '--from-resolutions', '--json');
    expect(run.code).toBe(0);
    const found = JSON.parse(run.stdout);
    expect(found.skipped).toEqual({ 'no option masses recorded (a driver without logprobs)': 1 });
    const byModel = Object.fromEntries(found.fits.map((fit: any) => [fit.identity.model, fit]));
    expect(Object.keys(byModel).sort()).toEqual(['sim-4o-2026-09-17', 'sim-4o-2026-11-20']);

    const main = byModel['sim-4o-2026-09-17'];
    expect(main.identity).toEqual({
      connection: 'openai',
      model: 'sim-4o-2026-09-17',
      questions: expect.any(String),
      decision: 'RefundDecision',
      decisionVersion: '2',
    });
    expect(main).toMatchObject({ cases: 150, resolutions: 130, audits: 30, undetermined: 10, caution: null });
    // Exactly the fit of this identity's own truths: nothing of the other model's (nor the expiry's) mixed in.
    const own = fitTemperature(expected['sim-4o-2026-09-17'])!;
    expect(main.temperature).toBeCloseTo(own.temperature, 9);
    expect(main.temperature).toBeGreaterThan(1.5); // over-confident masses are softened
    expect(main.nllAfter).toBeLessThan(main.nllBefore);

    const small = byModel['sim-4o-2026-11-20'];
    expect(small.cases).toBe(40);
    expect(small.temperature).toBeCloseTo(fitTemperature(expected['sim-4o-2026-11-20'])!.temperature, 9);
    expect(small.caution).toBe(
      'the temperature of openai rests on n = 40 answers: unreliable below 100. Label more cases before applying it.',
    );
  });

  it('prints each identity apart with the rule that reads the truths and the caution', async () => {
    const run = await evalCli('--fit-temperature', '--from-resolutions');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Temperature refitted from the resolutions of refund-abuse (no Engine call)');
    expect(run.stdout).toContain('read back through the Decision');
    expect(run.stdout).toMatch(
      /openai · sim-4o-2026-09-17 · RefundDecision v2 · questions \w{8} — from 130 resolved Reviews and 30 audits \(10 answers without a readable truth left out\)/,
    );
    expect(run.stdout).toMatch(/openai · sim-4o-2026-11-20 · RefundDecision v2/);
    expect(run.stdout).toContain('Warning: the temperature of openai rests on n = 40 answers: unreliable below 100.');
    expect(run.stdout).toContain('Each identity is fitted apart, never mixed');
    expect(run.stdout).toContain('Left out: 1 record: no option masses recorded (a driver without logprobs).');
  });

  it('is a usage error without --fit-temperature, or with options that ask an Engine', async () => {
    const alone = await evalCli('--from-resolutions');
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--from-resolutions goes with --fit-temperature');
    const mixed = await evalCli('--fit-temperature', '--from-resolutions', '--dataset=x.json');
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('takes no --dataset');
  });
});
