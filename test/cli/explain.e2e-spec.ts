// `judgment explain <recordId>` as a real process (the bin over the fixture app, SQLite file): a refund assessed by
// the real Jev driver against the simulator and decided in-process by a Decision with declared thresholds, then
// explained by a separate process reading the same database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  type Assessment,
  AssessmentRecord,
  AssessmentRecords,
  Decision,
  Judge,
  JudgmentModule,
  judgmentEntities,
  judgmentOptionsFromEnv,
} from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { runBin } from './cli-process';
import { Refund, RefundAbuse, RefundOutcome } from './fixture-app.module';

const KEY = 'sk-cli-explain-key';

@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], name: 'thresholded-refund', version: '3' })
class ThresholdedRefund implements Decision<RefundAbuse, RefundOutcome> {
  readonly thresholds = { reject: 0.65, escalate: 0.3 };
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(this.thresholds.reject)) return RefundOutcome.Reject;
    if (abusive.above(this.thresholds.escalate)) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}

describe('judgment explain', () => {
  const dir = mkdtempSync(join(tmpdir(), 'judgment-cli-explain-trace-'));
  const database = join(dir, 'app.sqlite');
  const simulator = new JevSimulator({ apiKey: KEY });
  let url: string;
  let escalated: number;
  let undecided: number;
  let unrounded: number;

  const explain = (args: string[]) =>
    runBin(['--app', 'test/cli/fixture-app.module.ts#FixtureAppModule', 'explain', ...args], {
      FIXTURE_DB: database,
      TYPESAFE_API_KEY: KEY,
      TYPESAFE_BASE_URL: url,
    });

  beforeAll(async () => {
    url = await simulator.start(0);
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database,
          entities: [Refund, ...judgmentEntities],
          synchronize: true,
        }),
        JudgmentModule.forRoot({
          ...judgmentOptionsFromEnv({ TYPESAFE_API_KEY: KEY, TYPESAFE_BASE_URL: url }),
          log: false,
        }),
        JudgmentModule.forFeature([RefundAbuse]),
      ],
    }).compile();
    const app = await moduleRef.init();
    const refunds = app.get(DataSource).getRepository(Refund);
    const judge = app.get(Judge);
    const records = app.get(AssessmentRecords);

    const refund = await refunds.save(
      refunds.create({ item: 'Lamp', amount: 20, explanation: 'It broke. [[abusive=0.45]]' }),
    );
    const assessment = await judge.assess(new RefundAbuse(refund));
    expect(await assessment.decide(new ThresholdedRefund())).toMatchObject({ outcome: RefundOutcome.Escalate });
    const record = (await records.latest(refund, RefundAbuse)) as AssessmentRecord;
    escalated = record.id;
    // A reviewer's Resolution, as the ReviewResolver writes it.
    await app
      .get(DataSource)
      .getRepository(AssessmentRecord)
      .update(record.id, {
        resolution: 'approve',
        resolverType: 'user',
        resolverId: '7',
        resolvedAt: new Date('2026-12-01T02:00:00Z'),
      });

    const other = await refunds.save(
      refunds.create({ item: 'Desk', amount: 90, explanation: 'Wrong colour. [[abusive=0.2]]' }),
    );
    await judge.assess(new RefundAbuse(other));
    undecided = ((await records.latest(other, RefundAbuse)) as AssessmentRecord).id;
    // A round whose Questions two models answered, as the RecordWriter keeps it for a driver reporting one per Question.
    await app
      .get(DataSource)
      .getRepository(AssessmentRecord)
      .update(undecided, {
        provenanceDetails: { questionModels: { abusive: 'gpt-4o-mini-2024-07-18', tone: 'gpt-4o-2099-01-01' } },
      });
    // Probabilities as a driver computes them (softmax, rescaling) and a trace of them: stored exactly.
    const third = await refunds.save(refunds.create({ item: 'Kettle', amount: 35, explanation: '[[abusive=0.45]]' }));
    const computed = await judge.assess(new RefundAbuse(third));
    await computed.decide(new ThresholdedRefund());
    const stored = (await records.latest(third, RefundAbuse)) as AssessmentRecord;
    unrounded = stored.id;
    const trace = stored.decisionTrace!;
    await app
      .get(DataSource)
      .getRepository(AssessmentRecord)
      .update(unrounded, {
        answers: { abusive: 0.44999999999999996, credibility: [0.1234567, 1 - 0.1234567 - 0.6, 0.6] },
        decisionTrace: {
          ...trace,
          comparisons: trace.comparisons.map((comparison) => ({
            ...comparison,
            value: 0.44999999999999996,
            margin: comparison.margin === null ? null : comparison.margin - 1e-7,
          })),
        },
      });
    await app.close();
  });

  afterAll(async () => {
    await simulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the identity, the answers, the rule that fired with each threshold and margin, and the Review', async () => {
    const run = await explain([String(escalated)]);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Record #${escalated}: refund-abuse about Refund #\\d+, created `));
    expect(run.stdout).toMatch(/Engine: jev, model \S+, request \S+/);
    expect(run.stdout).toContain('  abusive: probability 0.45');
    expect(run.stdout).toContain('Decision: thresholded-refund v3 decided escalate');
    expect(run.stdout).toContain('Rule that fired: abusive ≥ escalate (0.3)');
    expect(run.stdout).toContain('  1. abusive ≥ reject (0.65): value 0.45 did not hold, margin -0.2\n');
    expect(run.stdout).toContain('  2. abusive ≥ escalate (0.3): value 0.45 held, margin +0.15  ← fired\n');
    expect(run.stdout).toMatch(/Review: requested \d{4}-\S+ \(a Review Outcome\)\n/);
    expect(run.stdout).toContain(
      'Why: thresholded-refund decided "escalate", one of its Review Outcomes, by the rule: abusive ≥ escalate (0.3).',
    );
    expect(run.stdout).toContain('Resolution: approve by user 7 at 2026-12-01T02:00:00.000Z');
  });

  it('prints the record as the HTTP adapter shows it with --json, the trace as stored', async () => {
    const run = await explain([String(escalated), '--json']);

    expect(run.code).toBe(0);
    const explanation = JSON.parse(run.stdout);
    expect(explanation).toMatchObject({
      id: escalated,
      judgment: 'refund-abuse',
      decision: { name: 'thresholded-refund', version: '3' },
      outcome: 'escalate',
      state: 'resolved',
      trace: {
        rule: { comparisons: [1], text: 'abusive ≥ escalate (0.3)' },
        comparisons: [
          { key: 'abusive', op: 'above', threshold: 0.65, thresholdName: 'reject', margin: -0.2, result: false },
          { key: 'abusive', op: 'above', threshold: 0.3, thresholdName: 'escalate', margin: 0.15, result: true },
        ],
      },
      reviewCause: 'band',
      review: { cause: 'band', resolution: 'approve', resolver: { type: 'user', id: '7' } },
    });
  });

  it('says when a record was never decided, and names the model of each Question when several answered', async () => {
    const run = await explain([String(undecided)]);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Decision: none recorded yet');
    expect(run.stdout).toContain('Review: not requested.');
    expect(run.stdout).toContain('Models by Question:\n  abusive: gpt-4o-mini-2024-07-18\n  tone: gpt-4o-2099-01-01\n');
  });

  it('shows probabilities, values and margins rounded to three decimals, and keeps them exact in --json (issue 31)', async () => {
    const run = await explain([String(unrounded)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('  abusive: probability 0.45\n');
    expect(run.stdout).toContain('  credibility: probability per level (lowest first) 0.123, 0.277, 0.6\n');
    expect(run.stdout).toContain('  2. abusive ≥ escalate (0.3): value 0.45 held, margin +0.15  ← fired\n');
    expect(run.stdout).not.toMatch(/0\.4499|0\.2765|0\.1499/);
    const json = JSON.parse((await explain([String(unrounded), '--json'])).stdout);
    expect(json.answers.abusive).toBe(0.44999999999999996);
    expect(json.trace.comparisons[1].value).toBe(0.44999999999999996);
  });

  it('exits 1 naming the id when no record has it, and 2 for an id that is not a number', async () => {
    const missing = await explain(['999999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No assessment record has id 999999.');

    const bad = await explain(['twelve']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('The record id must be a positive integer; got "twelve".');
  });
});
