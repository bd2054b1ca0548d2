// The calibration lock and the drift guard end to end: calibrate over the Jev simulator, lock, then run the app under
// the lock while the simulator's alias moves to a new model release — inline and in the queue's decide job. The
// OpenTelemetry SDK is registered (in-memory metric reader) to count drifts and audits in the package's metrics.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource, MoreThan } from 'typeorm';
import { AssessmentRecord, AssessmentRecords, AwaitingReview, Judge } from 'nestjs-judgment';
import { type RunningJevSimulator, startJevSimulator } from 'nestjs-judgment/simulator';
import {
  Calibration,
  CalibrationLock,
  InvalidCalibrationLock,
  LabelledCase,
  lockCalibration,
} from 'nestjs-judgment/calibration';
import { JudgmentJobs } from '../../libs/judgment/src/queue/judgment.jobs';
import { answeredColumns } from '../../libs/judgment/src/queue/queue.jobs-data';
import { clearPrefix } from '../support/redis';
import {
  type Telemetry,
  collectMetrics,
  counted,
  registerTelemetry,
  unregisterTelemetry,
} from '../telemetry/telemetry.fixtures';
import {
  CALIBRATED_MODEL,
  ClaimCheck,
  ClaimOutcome,
  DriftLog,
  PREFIX,
  RELEASED_MODEL,
  WarningLog,
  freshDatabase,
  postgres,
  startApp,
} from './production.fixtures';

let sim: RunningJevSimulator;
let db: DataSource;
let lockFile: string;
let telemetry: Telemetry;
const apps: INestApplicationContext[] = [];

async function app(settings: Omit<Parameters<typeof startApp>[0], 'simulatorUrl'>) {
  const started = await startApp({ simulatorUrl: sim.url, ...settings });
  apps.push(started);
  return started;
}

async function record(id: number): Promise<AssessmentRecord> {
  return db.getRepository(AssessmentRecord).findOneByOrFail({ id });
}

/** Decisions counted as drifted (`judgment.calibration.drifts`) under a policy, since the SDK was registered. */
async function drifts(policy: string): Promise<number> {
  return counted(await collectMetrics(telemetry), 'judgment.calibration.drifts', {
    'judgment.name': 'claim-check',
    'judgment.decision': 'claim-decision',
    'judgment.drift.policy': policy,
  });
}

/** Audits counted (`judgment.audits`) by event — requested, agreed, disagreed — since the SDK was registered. */
async function audits(event: string): Promise<number> {
  return counted(await collectMetrics(telemetry), 'judgment.audits', {
    'judgment.name': 'claim-check',
    'judgment.decision': 'claim-decision',
    'judgment.audit.event': event,
  });
}

/** Assesses inline and returns the Outcome and the record as stored. */
async function assess(nest: INestApplicationContext, text: string) {
  const assessment = await nest.get(Judge).assess(new ClaimCheck(text));
  const outcome = await assessment.outcome();
  const rows = await db.getRepository(AssessmentRecord).find({ order: { id: 'DESC' }, take: 1 });
  return { outcome, record: rows[0] };
}

beforeAll(async () => {
  telemetry = registerTelemetry();
  await freshDatabase();
  db = await new DataSource(postgres()).initialize();
  await clearPrefix(PREFIX);
  sim = await startJevSimulator({ model: CALIBRATED_MODEL });
  lockFile = join(mkdtempSync(join(tmpdir(), 'calib-production-')), 'judgment.lock.json');

  // Calibrate on the simulator's current model and lock the figures, as `judgment eval --lock` does.
  const calibrating = await app({});
  const cases = [0.05, 0.1, 0.15, 0.2, 0.8, 0.85, 0.9, 0.95].map((p) =>
    LabelledCase.of(new ClaimCheck(`A claim. [[fraud=${p}]]`), p > 0.5 ? ClaimOutcome.Reject : ClaimOutcome.Approve, {
      truth: { fraud: p > 0.5 },
    }),
  );
  const report = await calibrating.get(Calibration).for(ClaimCheck).cases(cases).run();
  lockCalibration(CalibrationLock.empty(lockFile), report).write();
});

afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
  sim.setModel(CALIBRATED_MODEL);
});

afterAll(async () => {
  await unregisterTelemetry(telemetry);
  await db?.destroy();
  await sim?.stop();
  await clearPrefix(PREFIX);
});

describe('the calibration lock', () => {
  it('records per Judgment × Decision × version the identity, figures and thresholds calibrated', () => {
    const lock = CalibrationLock.read(lockFile);
    const entry = lock.entry('claim-check', 'claim-decision', '3');
    expect(entry?.thresholds).toEqual({ reject: 0.7, escalate: 0.3 });
    expect(entry?.identities).toHaveLength(1);
    expect(entry?.identities[0]).toMatchObject({
      model: CALIBRATED_MODEL,
      connection: 'jev',
      driver: 'jev',
      cases: 8,
      accuracy: 1,
      reviewRate: 0,
    });
    expect(entry?.identities[0].dataset).toMatch(/^[0-9a-f]{64}$/);
    // (0.05² + 0.1² + 0.15² + 0.2²) × 2 / 8: each probability scored against its truth.
    expect(entry?.identities[0].brier.fraud).toBeCloseTo(0.01875, 9);
    expect(entry?.identities[0].accuracyInterval?.low).toBeGreaterThan(0.6);
  });
});

describe('thresholds recorded with the decision', () => {
  it('stores the thresholds the Decision decided with on the record, beside its name and version', async () => {
    const nest = await app({});
    const { record: row } = await assess(nest, 'Water damage in the kitchen. [[fraud=0.1]]');
    expect(row).toMatchObject({
      decision: 'claim-decision',
      decisionVersion: '3',
      decisionThresholds: { reject: 0.7, escalate: 0.3 },
    });
  });
});

describe('the drift guard, inline', () => {
  it('lets an automatic Outcome act when the decision runs under the locked identity', async () => {
    const nest = await app({ calibration: { lock: lockFile, onDrift: 'review' } });
    const { outcome, record: row } = await assess(nest, 'Stolen bike. [[fraud=0.1]]');
    expect(outcome).toBe(ClaimOutcome.Approve);
    expect(row.reviewRequestedAt).toBeNull();
    expect(nest.get(DriftLog).drifted).toEqual([]);
  });

  it("with 'review', sends the automatic Outcomes of a new model to Review, saying why, announcing it once", async () => {
    const nest = await app({ calibration: { lock: lockFile, onDrift: 'review' } });
    const driftsBefore = await drifts('review');
    sim.setModel(RELEASED_MODEL);
    const first = await assess(nest, 'Stolen bike. [[fraud=0.1]]');
    const second = await assess(nest, 'Broken phone. [[fraud=0.9]]');

    // The caller is told: the automatic Outcome comes back as a case awaiting Review, with the drift as its reason.
    expect(first.outcome).toBeInstanceOf(AwaitingReview);
    expect(first.outcome).toMatchObject({ outcome: ClaimOutcome.Approve, recordId: first.record.id });
    expect((first.outcome as AwaitingReview).reason.cause).toBe('drift');
    expect((first.outcome as AwaitingReview).reason.text).toContain(`answered with the model ${RELEASED_MODEL}`);
    expect(second.outcome).toMatchObject({ outcome: ClaimOutcome.Reject, reason: { cause: 'drift' } });
    expect(first.record.model).toBe(RELEASED_MODEL);
    expect(first.record.reviewRequestedAt).not.toBeNull();
    expect(first.record.reviewCause).toBe('drift');
    expect(first.record.reviewReason).toContain(`answered with the model ${RELEASED_MODEL}`);
    expect(first.record.reviewReason).toContain(CALIBRATED_MODEL);
    expect((await record(second.record.id)).reviewRequestedAt).not.toBeNull();

    const log = nest.get(DriftLog);
    expect(log.reviews.map((event) => event.record?.id)).toEqual([first.record.id, second.record.id]);
    expect(log.reviews.map((event) => event.reason.cause)).toEqual(['drift', 'drift']);
    expect(log.drifted).toHaveLength(1);
    expect(log.drifted[0].identity).toMatchObject({
      judgment: 'claim-check',
      decision: 'claim-decision',
      decisionVersion: '3',
      model: RELEASED_MODEL,
    });
    expect(log.drifted[0].policy).toBe('review');
    expect(log.drifted[0].record?.id).toBe(first.record.id);
    expect((await drifts('review')) - driftsBefore).toBe(2); // announced once, but each drifted decision is counted
  });

  it("with 'warn', announces and logs the drift but lets the automatic Outcome act", async () => {
    const warnings = new WarningLog();
    const nest = await app({ calibration: { lock: lockFile, onDrift: 'warn' }, logger: warnings });
    const driftsBefore = await drifts('warn');
    sim.setModel(RELEASED_MODEL);
    const { record: row } = await assess(nest, 'Stolen bike. [[fraud=0.1]]');
    expect(row.reviewRequestedAt).toBeNull();
    expect(row.reviewReason).toBeNull();
    expect(nest.get(DriftLog).drifted.map((event) => event.policy)).toEqual(['warn']);
    expect((await drifts('warn')) - driftsBefore).toBe(1);
    expect(warnings.warnings).toContainEqual(expect.objectContaining({ message: 'Calibration drifted.' }));
  });

  it("with 'off', checks nothing", async () => {
    const nest = await app({ calibration: { lock: lockFile, onDrift: 'off' } });
    const driftsBefore = (await drifts('review')) + (await drifts('warn'));
    sim.setModel(RELEASED_MODEL);
    const { record: row } = await assess(nest, 'Stolen bike. [[fraud=0.1]]');
    expect(row.reviewRequestedAt).toBeNull();
    expect(nest.get(DriftLog).drifted).toEqual([]);
    expect((await drifts('review')) + (await drifts('warn'))).toBe(driftsBefore);
    expect(await drifts('off')).toBe(0);
  });

  it('treats other thresholds at the same version as drift (a version not bumped)', async () => {
    const lock = CalibrationLock.read(lockFile);
    const entry = lock.entry('claim-check', 'claim-decision', '3')!;
    const edited = join(mkdtempSync(join(tmpdir(), 'calib-production-')), 'judgment.lock.json');
    CalibrationLock.empty(edited)
      .with('claim-check', { ...entry, thresholds: { reject: 0.8, escalate: 0.3 } })
      .write();
    const warnings = new WarningLog();
    const nest = await app({ calibration: { lock: edited, onDrift: 'review' }, logger: warnings });
    expect(warnings.warnings).toContainEqual(
      expect.objectContaining({ message: 'Decision not calibrated.', decision: 'claim-decision' }),
    );
    const { record: row } = await assess(nest, 'Stolen bike. [[fraud=0.1]]');
    expect(row.reviewReason).toContain('differ from the locked');
  });
});

describe('the drift guard at startup', () => {
  it('lists a Decision that has no lock entry', async () => {
    const empty = join(mkdtempSync(join(tmpdir(), 'calib-production-')), 'judgment.lock.json');
    CalibrationLock.empty(empty).write();
    const warnings = new WarningLog();
    await app({ calibration: { lock: empty, onDrift: 'warn' }, logger: warnings });
    expect(warnings.warnings).toContainEqual(
      expect.objectContaining({
        message: 'Decision not calibrated.',
        judgment: 'claim-check',
        problem: expect.stringContaining('no lock entry'),
      }),
    );
  });

  it('refuses to start with a lock naming a Judgment the app does not register, naming the file and field', async () => {
    const foreign = join(mkdtempSync(join(tmpdir(), 'calib-production-')), 'judgment.lock.json');
    const entry = CalibrationLock.read(lockFile).entry('claim-check', 'claim-decision', '3')!;
    CalibrationLock.empty(foreign).with('not-a-judgment', entry).write();
    const failure = app({ calibration: { lock: foreign } });
    await expect(failure).rejects.toThrow(InvalidCalibrationLock);
    await expect(failure).rejects.toThrow(`${foreign} (field judgments.not-a-judgment)`);
  });

  it('refuses to start with a corrupt lock, naming the file', async () => {
    const corrupt = join(mkdtempSync(join(tmpdir(), 'calib-production-')), 'judgment.lock.json');
    writeFileSync(corrupt, readFileSync(lockFile, 'utf8').slice(0, 40));
    await expect(app({ calibration: { lock: corrupt } })).rejects.toThrow(
      `The calibration lock ${corrupt} is not valid JSON`,
    );
  });
});

describe('the drift guard in the queue', () => {
  it("sends a drifted automatic Outcome to Review in the decide job, with 'review'", async () => {
    const nest = await app({ calibration: { lock: lockFile, onDrift: 'review' }, queue: true });
    const driftsBefore = await drifts('review');
    sim.setModel(RELEASED_MODEL);
    const before = (await db.getRepository(AssessmentRecord).maximum('id')) ?? 0;
    await nest.get(Judge).dispatch(new ClaimCheck('Lost luggage. [[fraud=0.05]]'));
    const deadline = Date.now() + 20_000;
    let row: AssessmentRecord | null = null;
    while (Date.now() < deadline) {
      row = await db.getRepository(AssessmentRecord).findOne({ where: { id: MoreThan(before) } });
      if (row?.outcome) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(row?.outcome).toBe(ClaimOutcome.Approve);
    expect(row?.model).toBe(RELEASED_MODEL);
    expect(row?.reviewRequestedAt).not.toBeNull();
    expect(row?.reviewCause).toBe('drift');
    expect(row?.reviewReason).toContain(RELEASED_MODEL);
    expect(nest.get(DriftLog).drifted.map((event) => event.identity.model)).toEqual([RELEASED_MODEL]);
    expect((await drifts('review')) - driftsBefore).toBe(1); // counted by the decide job's worker
  });
});

describe('audit sampling', () => {
  const auditor = { type: 'Agent', id: 'alice' };

  it('samples automatic Outcomes for an audit that leaves them standing, listed apart from Reviews', async () => {
    const nest = await app({ calibration: { lock: lockFile, audit: { 'claim-decision': 1 } } });
    const { outcome, record: row } = await assess(nest, 'Stolen bike. [[fraud=0.1]]');
    expect(outcome).toBe(ClaimOutcome.Approve);
    expect(row.auditRequestedAt).not.toBeNull();
    expect(row.reviewRequestedAt).toBeNull(); // the automatic Outcome acts
    const escalated = await assess(nest, 'Unclear claim. [[fraud=0.5]]');
    expect(escalated.record.auditRequestedAt).toBeNull(); // an Outcome in Review is not audited

    const records = nest.get(AssessmentRecords);
    expect((await records.awaitingAudit({ judgment: 'claim-check' })).map((r) => r.id)).toContain(row.id);
    expect((await records.awaitingReview({ judgment: 'claim-check' })).map((r) => r.id)).not.toContain(row.id);
    expect(nest.get(DriftLog).audits.map((event) => event.record.id)).toEqual([row.id]);
  });

  it('a decide job run again from its job data, after the Outcome and the audit were written, requests no second audit', async () => {
    const nest = await app({ calibration: { lock: lockFile, audit: { 'claim-decision': 1 } } });
    const text = 'Stolen phone. [[fraud=0.1]]';
    const { record: row } = await assess(nest, text);
    expect(row.auditRequestedAt).not.toBeNull();
    const sampled = nest.get(DriftLog).audits.length;
    // A retried decide job starts from the answered columns its assess job handed it, not from the row.
    await nest.get(JudgmentJobs).decide(row.id, new ClaimCheck(text), answeredColumns(row));
    const again = await db.getRepository(AssessmentRecord).findOneByOrFail({ id: row.id });
    expect(again.auditRequestedAt).toEqual(row.auditRequestedAt);
    expect(nest.get(DriftLog).audits).toHaveLength(sampled);
  });

  it('counts audits requested, then agreed or disagreed as each is resolved', async () => {
    const nest = await app({ calibration: { lock: lockFile, audit: { 'claim-decision': 1 } } });
    const records = nest.get(AssessmentRecords);
    const before = {
      requested: await audits('requested'),
      agreed: await audits('agreed'),
      disagreed: await audits('disagreed'),
    };
    const agreedWith = await assess(nest, 'Stolen bike. [[fraud=0.1]]');
    const disagreedWith = await assess(nest, 'Lost ring. [[fraud=0.15]]');
    await assess(nest, 'Unclear claim. [[fraud=0.5]]'); // in Review: not audited, not counted
    expect((await audits('requested')) - before.requested).toBe(2);

    await records.resolveAudit(agreedWith.record, ClaimOutcome.Approve, auditor);
    await records.resolveAudit(disagreedWith.record, ClaimOutcome.Reject, auditor);
    expect((await audits('agreed')) - before.agreed).toBe(1);
    expect((await audits('disagreed')) - before.disagreed).toBe(1);
  });

  it('samples nothing at rate 0 (the default)', async () => {
    const nest = await app({ calibration: { lock: lockFile } });
    const { record: row } = await assess(nest, 'Stolen bike. [[fraud=0.1]]');
    expect(row.auditRequestedAt).toBeNull();
  });

  it('resolves an audit race-safely: of two concurrent auditors exactly one is recorded', async () => {
    const nest = await app({ calibration: { lock: lockFile, audit: { 'claim-decision': 1 } } });
    const { record: row } = await assess(nest, 'Stolen bike. [[fraud=0.1]]');
    const records = nest.get(AssessmentRecords);
    const results = await Promise.allSettled([
      records.resolveAudit(await record(row.id), ClaimOutcome.Approve, auditor),
      records.resolveAudit(await record(row.id), ClaimOutcome.Reject, { type: 'Agent', id: 'bob' }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const stored = await record(row.id);
    expect(stored.auditedAt).not.toBeNull();
    expect(stored.outcome).toBe(ClaimOutcome.Approve); // the automatic Outcome stood
    expect((await records.awaitingAudit({ judgment: 'claim-check' })).map((r) => r.id)).not.toContain(row.id);
  });

  it('announces AgreementDropped when the audited accuracy falls wholly below the lock’s interval', async () => {
    const nest = await app({ calibration: { lock: lockFile, audit: { 'claim-decision': 1 } } });
    const records = nest.get(AssessmentRecords);
    const log = nest.get(DriftLog);
    for (let i = 0; i < 6; i += 1) {
      const { record: row } = await assess(nest, `Claim ${i}. [[fraud=0.1]]`);
      await records.resolveAudit(row, ClaimOutcome.Reject, auditor); // the auditor disagrees every time
    }
    expect(log.dropped.length).toBeGreaterThan(0);
    const { agreement } = log.dropped[log.dropped.length - 1];
    expect(agreement.interval!.high).toBeLessThan(agreement.lockedInterval!.low);
    expect(agreement).toMatchObject({ judgment: 'claim-check', decision: 'claim-decision', model: CALIBRATED_MODEL });
  });
});
