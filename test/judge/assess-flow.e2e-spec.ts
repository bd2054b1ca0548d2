// The assess flow (reference 7.1 / 7.5): read the Judgment, expand, ask the Engine once, return the Assessment with its
// Provenance, record it, announce it, log it. Real Jev driver over HTTP to the simulator; PostgreSQL and SQLite.
import { type Assessment, AssessmentCompleted, AssessmentDecided, Judgment, Likelihood } from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import { InvalidQuestion } from 'nestjs-judgment/testing';
import {
  DB_KINDS,
  type Harness,
  MODEL,
  NoteCheck,
  RefundAbuse,
  SuiteDatabase,
  aRefund,
  decisionRequests,
  jevConnection,
  jevOptions,
  rejectionOf,
  startApp,
  startSimulator,
} from './support';

let db: SuiteDatabase;
let sim: JevSimulator;
let url: string;

beforeAll(async () => {
  db = await SuiteDatabase.create('judgment_judge_assess');
  ({ sim, url } = await startSimulator());
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

/** A RefundAbuse that notes every call the Judge makes to it. */
class ObservedRefundAbuse extends RefundAbuse {
  readonly calls: string[] = [];

  override questions() {
    this.calls.push('questions');
    return super.questions();
  }

  override evidence() {
    this.calls.push('evidence');
    return super.evidence();
  }
}

/** A direct key `harms.threat` that collides with the expanded key of the Likelihood Set `harms`. */
@Judgment({ name: 'colliding' })
class Colliding extends RefundAbuse {
  override questions() {
    return { ...super.questions(), 'harms.threat': Likelihood.that('Is anyone threatened?') };
  }
}

describe.each(DB_KINDS)('the assess flow on %s', (kind) => {
  let harness: Harness;

  beforeEach(async () => {
    await db.reset();
    sim.clearLog().clearFaults();
  });

  afterEach(async () => {
    await harness?.close();
  });

  const start = (overrides: Parameters<typeof jevOptions>[1] = {}) =>
    startApp({
      typeOrm: db.typeOrm(kind),
      options: jevOptions(url, overrides),
      // Colliding is not registered: the app would refuse to start on it (judgment check); assessed, it is refused too.
      judgments: [RefundAbuse, NoteCheck],
    });

  it('reads questions() then evidence(), once each per assessment', async () => {
    harness = await start();
    const judgment = new ObservedRefundAbuse(aRefund());

    await harness.judge.assess(judgment);

    expect(judgment.calls).toEqual(['questions', 'evidence']);
  });

  it('refuses a direct key colliding with an expanded set key before the Engine is asked', async () => {
    harness = await start();

    const error = await rejectionOf(harness.judge.assess(new Colliding(aRefund())));

    expect(error).toBeInstanceOf(InvalidQuestion);
    expect(error.message).toContain('"harms.threat"');
    expect(decisionRequests(sim)).toHaveLength(0);
    expect(await harness.records()).toHaveLength(0);
    expect(harness.captured.trail).toEqual([]);
  });

  it('asks every Question in one Engine round, Likelihood Sets under their expanded keys', async () => {
    harness = await start();

    await harness.judge.assess(new RefundAbuse(aRefund()));

    const requests = decisionRequests(sim);
    expect(requests).toHaveLength(1);
    const body = requests[0].body as { questions: Record<string, { type: string }> };
    expect(Object.keys(body.questions)).toEqual(['abusive', 'credibility', 'department', 'harms.threat', 'harms.spam']);
    expect(Object.values(body.questions).map((question) => question.type)).toEqual([
      'noul',
      'score',
      'choice',
      'noul',
      'noul',
    ]);
  });

  it('returns the Assessment with its Provenance: connection, versioned model, request id and details', async () => {
    harness = await start({
      engines: { jev: jevConnection(url, { model: 'jev-latest', allowAliases: true }) },
    });

    const assessment = await harness.judge.assess(new RefundAbuse(aRefund()));

    expect(assessment.likelihood('abusive').probability).toBe(0.2);
    expect(assessment.rating('credibility').level).toBe(3);
    expect(assessment.classification('department').label).toBe('billing');
    expect(Object.keys(assessment.likelihoodSet('harms').likelihoods)).toEqual(['threat', 'spam']);
    const { provenance } = assessment;
    expect(provenance.engine).toBe('jev');
    expect(provenance.model).toBe(MODEL); // the version the alias resolved to, not the configured alias
    expect(provenance.requestId).toBe(decisionRequests(sim)[0].requestId);
    expect(provenance.requestId).toMatch(/^req_[0-9a-f]{16}$/);
    expect(Object.keys(provenance.details).sort()).toEqual(['confidence', 'response', 'usage']);
    expect(provenance.details.usage).toEqual({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(Object.keys(provenance.details.confidence as object).sort()).toEqual(['credibility', 'department']);
    expect(provenance.details.response).toMatchObject({ model: MODEL, answers: expect.any(Object) });
  });

  it('records, then fires AssessmentCompleted with the record, then logs Judgment assessed.', async () => {
    harness = await start();

    const assessment = await harness.judge.assess(new RefundAbuse(aRefund()));

    expect(harness.captured.trail).toEqual([`event:${AssessmentCompleted.NAME}`, 'log:Judgment assessed.']);
    const [completed] = harness.captured.of(AssessmentCompleted);
    const [record] = await harness.records();
    expect(completed.assessment).toBe(assessment);
    expect(completed.record?.id).toBe(record.id);
    expect(completed.record?.answers).toEqual(record.answers);
    expect(harness.captured.line('Judgment assessed.')?.fields).toEqual({
      judgment: 'refund-abuse',
      engine: 'jev',
      model: MODEL,
      request_id: assessment.provenance.requestId,
    });
  });

  it('decides nothing: assess() leaves the Outcome to the app', async () => {
    harness = await start();

    await harness.judge.assess(new RefundAbuse(aRefund()));

    const [record] = await harness.records();
    expect(record.outcome).toBeNull();
    expect(record.decision).toBeNull();
    expect(harness.captured.of(AssessmentDecided)).toHaveLength(0);
  });

  it('reports usage() and lastModel() from the answers of real calls', async () => {
    harness = await start({ engines: { other: jevConnection(url) } });
    expect(harness.judge.usage()).toBe(0);
    expect(harness.judge.lastModel()).toBeNull();

    const first: Assessment<RefundAbuse> = await harness.judge.assess(new RefundAbuse(aRefund()));
    const second = await harness.judge.assess(new NoteCheck('Please refund me twice.'));

    const tokens = [first, second].map(
      (assessment) => (assessment.provenance.details.usage as { input_tokens: number }).input_tokens,
    );
    expect(tokens.every((count) => count > 0)).toBe(true);
    expect(harness.judge.usage()).toBe(tokens[0] + tokens[1]);
    expect(harness.judge.usage('jev')).toBe(tokens[0] + tokens[1]);
    expect(harness.judge.usage('other')).toBe(0);
    expect(harness.judge.lastModel()).toBe(MODEL);
  });
});
