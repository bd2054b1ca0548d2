// Caching (SPEC §3.4, reference 3.4 / 7.2): opt-in per Judgment; a hit is a new record pointing at the original, its
// own events, Outcome and Review, and no Engine request. Every part of the key misses when it changes.
import { CacheModule, type CacheManagerOptions } from '@nestjs/cache-manager';
import { Keyv } from 'keyv';
import {
  type Assessment,
  AssessmentCompleted,
  Judgment,
  type JudgmentModuleOptions,
  ReviewRequested,
} from 'nestjs-judgment';
import { type Engine, type EngineResponse, Provenance } from 'nestjs-judgment/drivers';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  DB_KINDS,
  type DbKind,
  type Harness,
  MODEL,
  NoteCheck,
  RefundAbuse,
  RefundDecision,
  RefundOutcome,
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
  db = await SuiteDatabase.create('judgment_judge_cache');
  ({ sim, url } = await startSimulator());
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

@Judgment({ name: 'cached-refund-abuse', decision: () => RefundDecision, cacheFor: 60 })
class CachedRefundAbuse extends RefundAbuse {}

/** NoteCheck under another name: same Questions, same Evidence. */
@Judgment({ name: 'renamed-note-check' })
class RenamedNoteCheck extends NoteCheck {}

/** An Engine class standing in for the Jev driver on the `jev` connection, with the same model. */
class StandInEngine implements Engine {
  static calls = 0;

  model(): string {
    return MODEL;
  }

  async answer(): Promise<EngineResponse> {
    StandInEngine.calls++;
    return { answers: { flagged: 0.5 }, provenance: new Provenance('jev', MODEL, 'req-stand-in') };
  }
}

const NOTE = 'Refund me twice. [[flagged=0.35]]';
const cachedNote = (options: ConstructorParameters<typeof NoteCheck>[1] = {}, note = NOTE) =>
  new NoteCheck(note, { cacheFor: 60, ...options });

describe.each(DB_KINDS)('caching on %s', (kind: DbKind) => {
  const opened: Harness[] = [];

  beforeEach(async () => {
    await db.reset();
    sim.clearLog().clearFaults();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((harness) => harness.close()));
  });

  const start = async (overrides: JudgmentModuleOptions = {}, store?: Keyv) => {
    const harness = await startApp({
      typeOrm: db.typeOrm(kind),
      options: jevOptions(url, overrides),
      judgments: [CachedRefundAbuse, NoteCheck, RenamedNoteCheck],
      // keyv ships separate ESM and CJS typings; the store is the same class at run time.
      imports: store ? [CacheModule.register({ stores: [store] as unknown as CacheManagerOptions['stores'] })] : [],
    });
    opened.push(harness);
    return harness;
  };

  it('makes a cache hit a new record pointing at the original, with empty provenance details and no Engine request', async () => {
    const harness = await start();

    const original = await harness.judge.assess(cachedNote());
    const hit = await harness.judge.assess(cachedNote());

    expect(decisionRequests(sim)).toHaveLength(1);
    expect(hit).not.toBe(original);
    expect(hit.likelihood('flagged').probability).toBe(0.35);
    expect(hit.provenance.details).toEqual({});
    expect(hit.provenance.logContext()).toEqual(original.provenance.logContext());
    const [first, second] = await harness.records();
    expect(second).toMatchObject({
      cachedFromId: first.id,
      provenanceDetails: {},
      answers: first.answers,
      engine: 'jev',
      model: MODEL,
      requestId: first.requestId,
      evidenceFingerprint: first.evidenceFingerprint,
    });
    expect(first.cachedFromId).toBeNull();
    expect(first.provenanceDetails).toHaveProperty('usage');
  });

  it('announces a hit with its own AssessmentCompleted and logs Judgment assessed from cache. with cached_from', async () => {
    const harness = await start();
    await harness.judge.assess(cachedNote());
    harness.captured.trail.length = 0;

    const hit = await harness.judge.assess(cachedNote());

    expect(harness.captured.trail).toEqual([`event:${AssessmentCompleted.NAME}`, 'log:Judgment assessed from cache.']);
    const [first, second] = await harness.records();
    const completed = harness.captured.of(AssessmentCompleted);
    expect(completed.map((event) => event.record?.id)).toEqual([first.id, second.id]);
    expect(completed[1].assessment).toBe(hit);
    expect(harness.captured.line('Judgment assessed from cache.')?.fields).toEqual({
      judgment: 'note-check',
      engine: 'jev',
      model: MODEL,
      request_id: first.requestId,
      cached_from: first.id,
    });
  });

  it('gives a hit its own Outcome and its own Review', async () => {
    const harness = await start();
    const refund = aRefund({ explanation: 'It broke. [[abusive=0.5]]' });
    const original: Assessment<CachedRefundAbuse> = await harness.judge.assess(new CachedRefundAbuse(refund));
    const hit: Assessment<CachedRefundAbuse> = await harness.judge.assess(new CachedRefundAbuse(refund));

    expect(await original.outcome()).toMatchObject({ outcome: RefundOutcome.Escalate, reason: { cause: 'band' } });
    expect(await hit.outcome()).toMatchObject({ outcome: RefundOutcome.Escalate, reason: { cause: 'band' } });

    const records = await harness.records();
    expect(records.map((record) => [record.outcome, record.isAwaitingReview()])).toEqual([
      ['escalate', true],
      ['escalate', true],
    ]);
    expect(harness.captured.of(ReviewRequested).map((event) => event.record?.id)).toEqual(records.map((r) => r.id));
  });

  const sameApp: Array<[string, () => NoteCheck]> = [
    ['the Judgment name', () => new RenamedNoteCheck(NOTE, { cacheFor: 60 })],
    ['the question wording', () => cachedNote({ wording: 'Does the note ask for more than one refund?' })],
    ['an Evidence value', () => cachedNote({}, `${NOTE} Now.`)],
    ['the untrusted marking', () => cachedNote({ untrusted: false })],
    ['the connection', () => cachedNote({ engine: 'jev-eu' })],
  ];

  it.each(sameApp)('misses when %s changes', async (_part, changed) => {
    const harness = await start({ engines: { 'jev-eu': jevConnection(url) } });
    await harness.judge.assess(cachedNote());
    await harness.judge.assess(cachedNote());
    expect(decisionRequests(sim)).toHaveLength(1);

    const assessment = await harness.judge.assess(changed());

    expect(decisionRequests(sim)).toHaveLength(2);
    expect(assessment.provenance.details).toHaveProperty('usage');
  });

  it('misses when the Engine class of the connection changes', async () => {
    const store = new Keyv();
    await (await start({}, store)).judge.assess(cachedNote());
    await (await start({}, store)).judge.assess(cachedNote()); // the same configuration hits through the shared store
    expect(decisionRequests(sim)).toHaveLength(1);
    StandInEngine.calls = 0;

    const other = await start({ engines: { jev: { driver: StandInEngine } } }, store);
    await other.judge.assess(cachedNote());

    expect(StandInEngine.calls).toBe(1);
  });

  it('misses when the configured model of the connection changes', async () => {
    const store = new Keyv();
    await (await start({}, store)).judge.assess(cachedNote());
    await (await start({}, store)).judge.assess(cachedNote());
    expect(decisionRequests(sim)).toHaveLength(1);

    const other = await start(
      { engines: { jev: jevConnection(url, { model: 'jev-latest', allowAliases: true }) } },
      store,
    );
    const assessment = await other.judge.assess(cachedNote());

    expect(decisionRequests(sim)).toHaveLength(2);
    expect(assessment.provenance.model).toBe(MODEL); // same answering version, yet another configured model
  });

  it('never caches a failure', async () => {
    const harness = await start();
    sim.fail({ status: 500 });
    await rejectionOf(harness.judge.assess(cachedNote()));

    await harness.judge.assess(cachedNote());
    await harness.judge.assess(cachedNote());

    expect(decisionRequests(sim)).toHaveLength(2);
    const records = await harness.records();
    expect(records.map((record) => [record.failureType, record.cachedFromId])).toEqual([
      ['EngineFailed', null],
      [null, null],
      [null, records[1].id],
    ]);
  });

  it('misses once the entry has expired', async () => {
    const harness = await start();
    const oneSecond = () => cachedNote({ cacheFor: 1 });
    await harness.judge.assess(oneSecond());
    await harness.judge.assess(oneSecond());
    expect(decisionRequests(sim)).toHaveLength(1);

    const later = Date.now() + 1_001;
    const clock = jest.spyOn(Date, 'now').mockReturnValue(later);
    try {
      await harness.judge.assess(oneSecond());
    } finally {
      clock.mockRestore();
    }

    expect(decisionRequests(sim)).toHaveLength(2);
  });

  it('ignores an entry cached while persistence was off once persistence is on', async () => {
    const store = new Keyv();
    await (await start({ persistence: { enabled: false } }, store)).judge.assess(cachedNote());
    await (await start({ persistence: { enabled: false } }, store)).judge.assess(cachedNote());
    expect(decisionRequests(sim)).toHaveLength(1);

    const recording = await start({}, store);
    await recording.judge.assess(cachedNote());

    expect(decisionRequests(sim)).toHaveLength(2);
    const [record] = await recording.records();
    expect(record.cachedFromId).toBeNull();
  });

  it("keeps entries in the app's CacheModule store: answers and Provenance ids, never the Evidence, for cacheFor seconds", async () => {
    const store = new Keyv();
    const harness = await start({}, store);
    const before = Date.now();

    const assessment = await harness.judge.assess(cachedNote());

    const entries = [...(store.store as Map<string, string>).entries()];
    expect(entries).toHaveLength(1);
    const [key, raw] = entries[0];
    expect(key).toMatch(/^keyv:judgment:assessment:[0-9a-f]{64}$/);
    const { value, expires } = JSON.parse(raw);
    expect(value).toEqual({
      answers: { flagged: 0.35 },
      engine: 'jev',
      model: MODEL,
      requestId: assessment.provenance.requestId,
      recordId: 1,
    });
    expect(expires).toBeGreaterThanOrEqual(before + 60_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 60_000);
  });
});
