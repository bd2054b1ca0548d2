// Events (SPEC §2.7) and logs (SPEC §3.7): typed event classes for @OnEvent, exact log lines and contexts, `log: false`,
// and the API key nowhere but on the wire. PostgreSQL and SQLite.
import {
  AssessmentCompleted,
  AssessmentDecided,
  AssessmentFailed,
  type Engine,
  type EngineResponse,
  type JudgmentModuleOptions,
  Provenance,
  ReviewRequested,
  ReviewResolved,
} from 'nestjs-judgment';
import type { Fault, JevSimulator } from 'nestjs-judgment/simulator';
import {
  API_KEY,
  DB_KINDS,
  type Harness,
  NoteCheck,
  RefundAbuse,
  SuiteDatabase,
  aRefund,
  decisionRequests,
  jevConnection,
  jevOptions,
  refuseWrites,
  rejectionOf,
  render,
  startApp,
  startSimulator,
} from './support';

let db: SuiteDatabase;
let sim: JevSimulator;
let url: string;

beforeAll(async () => {
  db = await SuiteDatabase.create('judgment_judge_events');
  ({ sim, url } = await startSimulator());
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

/** An Engine whose response the Judge rejects (it leaves the question unanswered). */
class ForgetfulEngine implements Engine {
  model(): string {
    return 'forgetful-1.0.0';
  }

  async answer(): Promise<EngineResponse> {
    return { answers: {}, provenance: new Provenance('forgetful', 'forgetful-1.0.0', 'req-forgetful-7') };
  }
}

it('declares one event class per event, each with a static dotted NAME', () => {
  expect(
    [AssessmentCompleted, AssessmentFailed, AssessmentDecided, ReviewRequested, ReviewResolved].map(
      (event) => event.NAME,
    ),
  ).toEqual([
    'judgment.assessment.completed',
    'judgment.assessment.failed',
    'judgment.assessment.decided',
    'judgment.review.requested',
    'judgment.review.resolved',
  ]);
});

describe.each(DB_KINDS)('events and logs on %s', (kind) => {
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
      options: jevOptions(url, {
        ...overrides,
        engines: { jev: jevConnection(url, { timeout: 0.3 }), forgetful: { driver: ForgetfulEngine } },
      }),
    });

  it('delivers typed AssessmentCompleted and AssessmentFailed instances to @OnEvent listeners after bootstrap', async () => {
    harness = await start();
    expect(harness.captured.events).toEqual([]); // nothing is announced while the app starts

    const assessment = await harness.judge.assess(new RefundAbuse(aRefund()));
    sim.fail({ status: 503 });
    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Refund please.')));

    const [completed, failed] = harness.captured.events;
    const [answered, unassessed] = await harness.records();
    expect(completed).toBeInstanceOf(AssessmentCompleted);
    expect(completed).toMatchObject({ assessment, record: { id: answered.id } });
    expect((completed as AssessmentCompleted).judgment).toBeInstanceOf(RefundAbuse);
    expect(failed).toBeInstanceOf(AssessmentFailed);
    expect(failed).toMatchObject({ error, record: { id: unassessed.id } });
  });

  it('logs Judgment assessed. and Judgment assessed from cache. at info level', async () => {
    harness = await start();

    await harness.judge.assess(new NoteCheck('Refund please.', { cacheFor: 60 }));
    await harness.judge.assess(new NoteCheck('Refund please.', { cacheFor: 60 }));

    expect(harness.captured.logs.map((line) => [line.level, line.message, Object.keys(line.fields)])).toEqual([
      ['log', 'Judgment assessed.', ['judgment', 'engine', 'model', 'request_id']],
      ['log', 'Judgment assessed from cache.', ['judgment', 'engine', 'model', 'request_id', 'cached_from']],
    ]);
  });

  it('logs Judgment unassessed. as a warning with the judgment and the exception when the driver failed', async () => {
    harness = await start();
    sim.fail({ status: 500 });

    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Refund please.')));

    expect(harness.captured.logs).toEqual([
      {
        level: 'warn',
        message: 'Judgment unassessed.',
        fields: { judgment: 'note-check', exception: { type: 'EngineFailed', message: error.message } },
      },
    ]);
  });

  it('logs Judgment unassessed. with engine, model and request_id when the Judge rejected a returned response', async () => {
    harness = await start();

    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Refund please.', { engine: 'forgetful' })));

    expect(harness.captured.line('Judgment unassessed.')?.fields).toEqual({
      judgment: 'note-check',
      engine: 'forgetful',
      model: 'forgetful-1.0.0',
      request_id: 'req-forgetful-7',
      exception: { type: 'MalformedEngineResponse', message: error.message },
    });
  });

  it('writes no log line with log: false', async () => {
    harness = await start({ log: false, persistence: { required: false } });

    const assessment = await harness.judge.assess(new RefundAbuse(aRefund()));
    await assessment.outcome();
    await harness.judge.assess(new NoteCheck('Refund please.', { cacheFor: 60 }));
    await harness.judge.assess(new NoteCheck('Refund please.', { cacheFor: 60 }));
    sim.fail({ status: 500 });
    await rejectionOf(harness.judge.assess(new NoteCheck('Refund please.')));
    await refuseWrites(harness.dataSource);
    await harness.judge.assess(new NoteCheck('Refund please, again.'));

    expect(harness.captured.events).toHaveLength(6); // everything happened, announced but unlogged
    expect(harness.captured.logs).toEqual([]);
  });

  it('never lets the API key into a log line, a record, an event or an error', async () => {
    harness = await start({ throwOnFailure: false, persistence: { required: false } });
    const faults: Array<[Fault, number]> = [
      [{ status: 500 }, 1],
      [{ status: 401 }, 1],
      [{ status: 400 }, 1],
      [{ status: 429, retryAfterMs: 1 }, 2],
      [{ kind: 'hang' }, 1],
      [{ kind: 'disconnect' }, 1],
      [{ kind: 'malformed', variant: 'non-json' }, 1],
    ];
    const results: unknown[] = [await harness.judge.assess(new RefundAbuse(aRefund()))];
    for (const [fault, times] of faults) {
      sim.fail(fault, times);
      results.push(await harness.judge.assess(new NoteCheck('Refund please.')));
    }
    await refuseWrites(harness.dataSource);
    results.push(await harness.judge.assess(new NoteCheck('Refund please, unrecorded.')));

    // The key did go out on the wire, as the Bearer token of every request.
    expect(decisionRequests(sim).every((request) => request.headers.authorization === `Bearer ${API_KEY}`)).toBe(true);
    const records = await harness.records();
    expect(records.filter((record) => record.isUnassessed())).toHaveLength(7);
    const everything = [
      ...harness.captured.everything,
      render(harness.captured.events),
      render(results),
      JSON.stringify(records),
    ].join('\n');
    expect(everything).toContain('Judgment unassessed.');
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toContain('SECRET');
  });
});
