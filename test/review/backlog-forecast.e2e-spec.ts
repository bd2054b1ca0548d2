// The Review backlog forecast (issue 32, point 4) on real PostgreSQL: records seeded with chosen review, deadline and
// resolution times; ReviewBacklogAtRisk fires from the review-deadline sweep once per risk episode; `judgment status`
// shows the forecast (text and --json) as a real process of the demo.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import {
  type Assessment,
  Decision,
  Evidence,
  Judgment,
  JudgmentModule,
  Likelihood,
  ReviewBacklogAtRisk,
} from 'nestjs-judgment';
import { ReviewBacklog } from 'nestjs-judgment/calibration';
import { DataSource } from 'typeorm';
import { type ReviewApp, prepareDatabase, startApp } from './review.fixtures';
import { PG, databaseUrl } from '../support/postgres';

const DATABASE = 'judgment_backlog_forecast';
const HOUR = 3_600_000;

enum Claim {
  Pay = 'pay',
  Check = 'check',
  Deny = 'deny',
}

@Decision({ outcomes: Claim, review: { outcomes: [Claim.Check], deadline: '48h', onExpiry: Claim.Deny } })
class ClaimDecision implements Decision<ClaimCheck, Claim> {
  decide(assessment: Assessment<ClaimCheck>): Claim {
    const fraud = assessment.likelihood('fraud');
    return fraud.above(0.7) ? Claim.Deny : fraud.above(0.3) ? Claim.Check : Claim.Pay;
  }
}

@Judgment({ name: 'claim-check', decision: () => ClaimDecision })
class ClaimCheck implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { text: Evidence.untrusted(this.text) };
  }
  questions() {
    return { fraud: Likelihood.that('Is this claim fraudulent?') };
  }
}

@Injectable()
class RiskLog {
  readonly events: ReviewBacklogAtRisk[] = [];
  @OnEvent(ReviewBacklogAtRisk.NAME)
  atRisk(event: ReviewBacklogAtRisk): void {
    this.events.push(event);
  }
}

/**
 * Seeds `judgment`'s Review: 20 cases in Review since 46.75 − k h ago (k = 0…19: deadlines in 1.25…20.25 h), 12 a
 * person resolved within the last 24 h (they entered Review 30 h ago), and 5 the deadline resolved (not resolutions).
 * At 0.5 resolutions an hour in deadline order, every other case in Review cannot be reached in time: 10 at risk.
 */
async function seed(db: DataSource, judgment: string, decision: string, outcome: string): Promise<void> {
  await db.query('DELETE FROM judgment_assessments WHERE judgment = $1', [judgment]);
  const now = Date.now();
  const rows: Array<[Date, Date | null, Date | null, string | null]> = [
    ...Array.from({ length: 20 }, (_, k): [Date, Date | null, Date | null, string | null] => [
      new Date(now - (46.75 - k) * HOUR),
      null,
      new Date(now + (k + 1.25) * HOUR),
      null,
    ]),
    ...Array.from({ length: 12 }, (_, k): [Date, Date | null, Date | null, string | null] => [
      new Date(now - 30 * HOUR),
      new Date(now - (k + 1) * HOUR),
      new Date(now + 18 * HOUR),
      'agent',
    ]),
    ...Array.from({ length: 5 }, (_, k): [Date, Date | null, Date | null, string | null] => [
      new Date(now - 50 * HOUR),
      new Date(now - (k + 1) * HOUR),
      new Date(now - (k + 1) * HOUR),
      'system',
    ]),
  ];
  for (const [requested, resolved, deadline, resolver] of rows) {
    await db.query(
      `INSERT INTO judgment_assessments (judgment, evidence_fingerprint, untrusted_paths, questions_fingerprint,
         engine, model, decision, outcome, review_requested_at, resolved_at, review_deadline_at, resolution,
         resolver_type, resolver_id, created_at)
       VALUES ($1, $2, '[]', 'q', 'jev', 'jev-1.13.0', $3, $4, $5, $6, $7, $8, $9, $10, $5)`,
      [
        judgment,
        'e'.repeat(64),
        decision,
        outcome,
        requested,
        resolved,
        deadline,
        resolved ? outcome : null,
        resolver,
        resolver === 'system' ? 'deadline' : resolver ? 'alice' : null,
      ],
    );
  }
}

let db: DataSource;
let context: ReviewApp | null = null;

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  db = await new DataSource({ ...PG, database: DATABASE }).initialize();
});

afterAll(async () => {
  await context?.app.close();
  await db?.destroy();
});

describe('the Review backlog forecast', () => {
  it('forecasts the cases in Review that will reach their deadline unresolved, from the last 24 h', async () => {
    await seed(db, 'claim-check', 'ClaimDecision', 'check');
    context = await startApp(DATABASE, 'http://127.0.0.1:9', {
      options: { review: { sweepInterval: false } },
      providers: [RiskLog],
      imports: [JudgmentModule.forFeature([ClaimCheck])],
    });
    const [forecast] = (await context.app.get(ReviewBacklog).forecast()).filter((f) => f.judgment === 'claim-check');
    expect(forecast).toMatchObject({
      judgment: 'claim-check',
      deadline: '48h',
      inReview: 20,
      withDeadline: 20,
      horizonHours: 48,
      expiringInReview: 10,
      expiringArrivals: 0,
      atRisk: 10,
      backlogAtHorizon: 0,
    });
    expect(forecast.arrivalsPerHour).toBe(0); // every seeded case entered Review over 24 h ago
    expect(forecast.resolutionsPerHour).toBeCloseTo(12 / 24, 12); // the 5 expiries are not resolutions
    await context.app.close();
    context = null;
  });

  it('fires ReviewBacklogAtRisk from the deadline sweep once per risk episode, not every tick', async () => {
    await seed(db, 'claim-check', 'ClaimDecision', 'check');
    context = await startApp(DATABASE, 'http://127.0.0.1:9', {
      options: { review: { sweepInterval: '1s' } },
      providers: [RiskLog],
      imports: [JudgmentModule.forFeature([ClaimCheck])],
    });
    const log = context.app.get(RiskLog);
    await new Promise((resolve) => setTimeout(resolve, 3500)); // three sweeps or more
    expect(log.events).toHaveLength(1);
    const [event] = log.events;
    expect(event).toBeInstanceOf(ReviewBacklogAtRisk);
    expect(event.judgment).toBe('claim-check');
    expect(event.forecast).toMatchObject({ atRisk: 10, inReview: 20, deadline: '48h' });

    // The episode ends when nothing is at risk (the cases were resolved), and a new one fires again.
    const backlog = context.app.get(ReviewBacklog);
    await db.query(
      `UPDATE judgment_assessments SET resolved_at = now(), resolution = 'pay', resolver_type = 'agent',
         resolver_id = 'bob' WHERE judgment = 'claim-check' AND resolved_at IS NULL`,
    );
    expect((await backlog.check()).find((f) => f.judgment === 'claim-check')?.atRisk).toBe(0);
    expect(log.events).toHaveLength(1);
    await seed(db, 'claim-check', 'ClaimDecision', 'check');
    await backlog.check();
    expect(log.events).toHaveLength(2);
    await backlog.check();
    expect(log.events).toHaveLength(2);
    await context.app.close();
    context = null;
  });
});

describe('judgment status', () => {
  const ROOT = join(__dirname, '..', '..');
  const status = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['-r', './scripts/register.js', 'apps/support-desk/src/cli.ts', 'status', ...args],
        { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl(DATABASE) } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });

  it('shows each Judgment’s backlog forecast against its deadline, in --json and in the text table', async () => {
    await db.query('DELETE FROM judgment_assessments');
    await seed(db, 'refund-abuse', 'RefundDecision', 'escalate'); // the demo's RefundDecision: 48h, onExpiry reject
    const json = await status('--json');
    const report = JSON.parse(json.stdout);
    expect(report.backlog).toEqual([
      expect.objectContaining({
        judgment: 'refund-abuse',
        deadline: '48h',
        inReview: 20,
        atRisk: 10,
        expiringInReview: 10,
        arrivalsPerHour: 0,
        resolutionsPerHour: 0.5,
      }),
    ]);
    const text = await status();
    expect(text.stdout).toMatch(
      /│ refund-abuse\s+│ 20\s+│ 0\.0\s+│ 0\.5\s+│ 48h\s+│ 0\s+│ 10 AT RISK \(10 in Review, 0 arriving\)/,
    );
    expect(text.stdout).toContain('Backlog forecast: Fluid first-in-first-out queue');
  });
});
