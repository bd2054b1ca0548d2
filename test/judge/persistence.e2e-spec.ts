// Records (SPEC §5) and the recording rules (SPEC §3.2, reference 7.4): what a record holds, whose Subject it is,
// and what happens when the database refuses the write. PostgreSQL (migrated) and SQLite.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import {
  type Assessment,
  AssessmentCompleted,
  AssessmentDecided,
  AssessmentFailed,
  AssessmentNotRecorded,
  EngineFailed,
  Judgment,
  type JudgmentModuleOptions,
  Unassessed,
} from 'nestjs-judgment';
import { questionsFingerprint } from '../../libs/judgment/src/questions/questions-fingerprint';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  DB_KINDS,
  type DbKind,
  type Harness,
  MODEL,
  NoteCheck,
  Refund,
  RefundAbuse,
  RefundOutcome,
  SuiteDatabase,
  aRefund,
  decisionRequests,
  jevOptions,
  refuseWrites,
  allowWrites,
  rejectionOf,
  startApp,
} from './support';
import { startSimulator } from './support';

/** The columns of `judgment_assessments`, SPEC §5, and those production calibration added (issue 15). */
const COLUMNS = [
  'id',
  'judgment',
  'subject_type',
  'subject_id',
  'evidence',
  'evidence_fingerprint',
  'untrusted_paths',
  'language',
  'questions_fingerprint',
  'answers',
  'engine',
  'model',
  'request_id',
  'provenance_details',
  'failure_type',
  'failure_message',
  'cached_from_id',
  'job_id',
  'cost',
  'cost_currency',
  'cost_basis',
  'claim_expires_at',
  'claimed_at',
  'claim_holder_id',
  'claim_holder_type',
  'decision',
  'decision_version',
  'decision_thresholds',
  'outcome_type',
  'outcome',
  'decision_trace',
  'decision_margin',
  'review_requested_at',
  'resolution',
  'resolver_type',
  'resolver_id',
  'resolved_at',
  'review_deadline_at',
  'review_reason',
  'review_cause',
  'audit_requested_at',
  'audit_resolution',
  'audit_resolver_type',
  'audit_resolver_id',
  'audited_at',
  'created_at',
  'updated_at',
];

let db: SuiteDatabase;
let sim: JevSimulator;
let url: string;

beforeAll(async () => {
  db = await SuiteDatabase.create('judgment_judge_persistence');
  ({ sim, url } = await startSimulator());
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

/** Two Refunds among its properties: no single Subject, unless subject() names one. */
@Judgment({ name: 'refund-pair' })
class RefundPair extends RefundAbuse {
  constructor(
    refund: Refund,
    readonly previous: Refund,
  ) {
    super(refund);
  }
}

@Judgment({ name: 'refund-pair-with-subject' })
class RefundPairWithSubject extends RefundPair {
  subject() {
    return this.previous;
  }
}

const sha256OfCanonicalJson = (value: unknown) => createHash('sha256').update(canonicalize(value)!).digest('hex');

describe.each(DB_KINDS)('records on %s', (kind: DbKind) => {
  let harness: Harness;

  beforeEach(async () => {
    await db.reset();
    sim.clearLog().clearFaults();
  });

  afterEach(async () => {
    await harness?.close();
  });

  const start = (overrides: JudgmentModuleOptions = {}) =>
    startApp({
      typeOrm: db.typeOrm(kind),
      options: jevOptions(url, overrides),
      judgments: [RefundAbuse, NoteCheck, RefundPair, RefundPairWithSubject],
    });

  const saveRefund = (overrides: Partial<Refund> = {}) =>
    harness.dataSource.getRepository(Refund).save(aRefund(overrides));

  it('records every column of an answered attempt (SPEC §5)', async () => {
    harness = await start();
    await saveRefund({ item: 'Kettle' }); // a first row, so the Subject's id is not trivially 1
    const refund = await saveRefund();
    const judgment = new RefundAbuse(refund);

    const assessment = await harness.judge.assess(judgment);

    const [row] = await harness.dataSource.query('SELECT * FROM judgment_assessments');
    expect(Object.keys(row).sort()).toEqual([...COLUMNS].sort());
    const [record] = await harness.records();
    const evidence = {
      order: { item: 'Headphones', amount_eur: 90 },
      request: { explanation: refund.explanation },
    };
    expect(record).toMatchObject({
      id: 1,
      judgment: 'refund-abuse',
      subjectType: 'Refund',
      subjectId: String(refund.id),
      evidence,
      evidenceFingerprint: sha256OfCanonicalJson(evidence),
      untrustedPaths: ['request.explanation'],
      language: 'en',
      questionsFingerprint: questionsFingerprint(judgment.questions()),
      answers: {
        abusive: 0.2,
        credibility: assessment.rating('credibility').probabilities,
        department: assessment.classification('department').probabilities,
        harms: expect.any(Object),
      },
      engine: 'jev',
      model: MODEL,
      requestId: assessment.provenance.requestId,
      provenanceDetails: JSON.parse(JSON.stringify(assessment.provenance.details)),
      failureType: null,
      failureMessage: null,
      cachedFromId: null,
      // Assessed inline, not by a queued job.
      jobId: null,
      // The jev connection declares no price: no cost is made up, and the record says why.
      cost: null,
      costCurrency: null,
      costBasis: expect.objectContaining({ note: 'The connection "jev" declares no price (engines.jev.price).' }),
      decision: null,
      decisionVersion: null,
      outcomeType: null,
      outcome: null,
      decisionTrace: null,
      decisionMargin: null,
      reviewRequestedAt: null,
      resolution: null,
      resolverType: null,
      resolverId: null,
      resolvedAt: null,
    });
    expect(record.subjectId).toBe('2');
    expect(record.answers?.department).toEqual({ billing: 0.6, shipping: 0.2, other: 0.2 });
    const harms = assessment.likelihoodSet('harms');
    expect(record.answers?.harms).toEqual({
      threat: harms.of('threat').probability,
      spam: harms.of('spam').probability,
    });
    expect(record.evidenceFingerprint).toMatch(/^[0-9a-f]{64}$/);
    // The Engine's answers, confidence and usage are stored once: the raw response keeps only what was not read out.
    const { usage, confidence, response } = record.provenanceDetails as Record<string, Record<string, unknown>>;
    expect(usage).toEqual({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(Object.keys(confidence).sort()).toEqual(['credibility', 'department']);
    expect(response).toMatchObject({ model: MODEL });
    expect(response).not.toHaveProperty('usage');
    expect(JSON.stringify(response)).not.toMatch(/"(noul|probabilities|confidence)":/);
    for (const stamp of [record.createdAt, record.updatedAt]) {
      expect(stamp).toBeInstanceOf(Date);
      expect(Math.abs(stamp.getTime() - Date.now())).toBeLessThan(60_000);
    }
  });

  it('stores the decision trace with the Outcome (column decision_trace, from judgmentMigrations)', async () => {
    harness = await start();
    const assessment = await harness.judge.assess(new RefundAbuse(await saveRefund()));

    expect(await assessment.outcome()).toBe('approve');
    const [record] = await harness.records();
    expect(record.decisionTrace).toEqual({
      version: 1,
      decision: 'RefundDecision',
      outcome: 'approve',
      reads: [{ key: 'abusive', kind: 'likelihood', value: 0.2 }],
      comparisons: [
        { key: 'abusive', op: 'above', value: 0.2, threshold: 0.65, result: false, thresholdName: null, margin: -0.45 },
        { key: 'abusive', op: 'above', value: 0.2, threshold: 0.3, result: false, thresholdName: null, margin: -0.1 },
      ],
      rule: { comparisons: [], text: 'otherwise (no tested condition held)' },
    });
  });

  it('records outcome_type as the Outcome enum the Decision names, and null when it names none (issue 31)', async () => {
    harness = await start();
    // RefundDecision declares no outcomeType: the enum's name is not known at run time, so none is recorded.
    const assessment = await harness.judge.assess(new RefundAbuse(await saveRefund()));
    await assessment.outcome();
    const [record] = await harness.records();
    expect(record).toMatchObject({ decision: 'RefundDecision', outcome: 'approve', outcomeType: null });
  });

  it('has no Subject when the Judgment holds no entity, two entities, or an unsaved one', async () => {
    harness = await start();
    const [first, second] = [await saveRefund(), await saveRefund()];

    await harness.judge.assess(new NoteCheck('No entity here.'));
    await harness.judge.assess(new RefundPair(first, second));
    await harness.judge.assess(new RefundAbuse(aRefund()));

    const records = await harness.records();
    expect(records.map((record) => record.judgment)).toEqual(['note-check', 'refund-pair', 'refund-abuse']);
    expect(records.map((record) => [record.subjectType, record.subjectId])).toEqual([
      [null, null],
      [null, null],
      [null, null],
    ]);
  });

  it('records the Subject that subject() returns', async () => {
    harness = await start();
    const [first, second] = [await saveRefund(), await saveRefund()];

    await harness.judge.assess(new RefundPairWithSubject(first, second));

    const [record] = await harness.records();
    expect([record.subjectType, record.subjectId]).toEqual(['Refund', String(second.id)]);
  });

  it('stores no Evidence with persistence.evidence false, but keeps its fingerprint and untrusted paths', async () => {
    harness = await start({ persistence: { evidence: false } });

    await harness.judge.assess(new RefundAbuse(aRefund()));

    const [record] = await harness.records();
    expect(record.evidence).toBeNull();
    expect(record.evidenceFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(record.untrustedPaths).toEqual(['request.explanation']);
  });

  it('throws AssessmentNotRecorded carrying the paid Assessment when a required write is refused', async () => {
    harness = await start();
    await refuseWrites(harness.dataSource);
    const cached = () => new NoteCheck('Give me a refund. [[flagged=0.7]]', { cacheFor: 60 });

    const error = await rejectionOf(harness.judge.assess(cached()));

    expect(error).toBeInstanceOf(AssessmentNotRecorded);
    expect(error.message).toContain('note-check');
    expect((error.assessment as Assessment<NoteCheck>).likelihood('flagged').probability).toBe(0.7);
    expect(String(error.cause?.message)).toContain('refused by the test');
    expect(harness.captured.of(AssessmentCompleted)).toHaveLength(0);
    expect(harness.captured.messages()).toEqual([]);
    // Nothing was cached: once writes are allowed, the same Judgment asks the Engine again.
    await allowWrites(harness.dataSource);
    await harness.judge.assess(cached());
    expect(decisionRequests(sim)).toHaveLength(2);
    expect(await harness.records()).toHaveLength(1);
  });

  it('throws AssessmentNotRecorded whatever throwOnFailure says', async () => {
    harness = await start({ throwOnFailure: false });
    await refuseWrites(harness.dataSource);

    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Refund please.')));

    expect(error).toBeInstanceOf(AssessmentNotRecorded);
  });

  it('refuses to decide an Assessment whose required write was refused', async () => {
    harness = await start();
    await refuseWrites(harness.dataSource);
    const error = await rejectionOf(harness.judge.assess(new RefundAbuse(aRefund())));
    await allowWrites(harness.dataSource);

    const decided = await rejectionOf((error.assessment as Assessment<RefundAbuse>).outcome());

    expect(decided).toBeInstanceOf(AssessmentNotRecorded);
    expect(harness.captured.of(AssessmentDecided)).toHaveLength(0);
    expect(await harness.records()).toHaveLength(0);
  });

  it('with persistence.required false logs Judgment not recorded., announces a null record and still decides', async () => {
    harness = await start({ persistence: { required: false } });
    await refuseWrites(harness.dataSource);

    const assessment = await harness.judge.assess(new RefundAbuse(aRefund()));
    const outcome = await assessment.outcome();

    expect(outcome).toBe(RefundOutcome.Approve);
    expect(harness.captured.trail).toEqual([
      'log:Judgment not recorded.',
      `event:${AssessmentCompleted.NAME}`,
      'log:Judgment assessed.',
      'log:Judgment decided.',
      `event:${AssessmentDecided.NAME}`,
    ]);
    const line = harness.captured.line('Judgment not recorded.')!;
    expect(line.level).toBe('warn');
    expect(line.fields).toEqual({
      ...assessment.logContext(),
      exception: { type: 'AssessmentNotRecorded', message: expect.stringContaining('refused by the test') },
    });
    expect(harness.captured.of(AssessmentCompleted)[0].record).toBeNull();
    expect(harness.captured.of(AssessmentDecided)[0].record).toBeNull();
    expect(await harness.records()).toHaveLength(0);
  });

  it('records failed attempts best-effort: a refused write is logged, never thrown instead of the EngineFailed', async () => {
    harness = await start(); // recording required
    await refuseWrites(harness.dataSource);
    sim.fail({ status: 500 });

    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Refund please.')));

    expect(error).toBeInstanceOf(EngineFailed);
    expect(error).not.toBeInstanceOf(AssessmentNotRecorded);
    expect(harness.captured.trail).toEqual([
      'log:Judgment not recorded.',
      `event:${AssessmentFailed.NAME}`,
      'log:Judgment unassessed.',
    ]);
    expect(harness.captured.line('Judgment not recorded.')?.fields).toEqual({
      judgment: 'note-check',
      exception: { type: 'UnassessedNotRecorded', message: expect.stringContaining('refused by the test') },
    });
    expect(harness.captured.of(AssessmentFailed)[0].record).toBeNull();
  });

  it('writes nothing with persistence disabled; events carry a null record', async () => {
    harness = await start({ persistence: { enabled: false }, throwOnFailure: false });

    const assessment = (await harness.judge.assess(new RefundAbuse(aRefund()))) as Assessment<RefundAbuse>;
    await assessment.outcome();
    sim.fail({ status: 500 });
    const unassessed = await harness.judge.assess(new NoteCheck('Refund please.'));

    expect(unassessed).toBeInstanceOf(Unassessed);
    expect((unassessed as unknown as Unassessed).record).toBeNull();
    expect(await harness.records()).toHaveLength(0);
    const { events } = harness.captured;
    expect(events.map((event) => event.constructor.name)).toEqual([
      'AssessmentCompleted',
      'AssessmentDecided',
      'AssessmentFailed',
    ]);
    expect(events.map((event) => (event as { record: unknown }).record)).toEqual([null, null, null]);
  });
});
