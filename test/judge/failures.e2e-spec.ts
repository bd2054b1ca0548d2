// Failures are data (SPEC §3.1, reference 7.3): a failed attempt is recorded, announced, logged, then thrown or
// returned as Unassessed; programming errors pass through. Jev driver over HTTP and a custom Engine class.
import {
  AssessmentFailed,
  EngineFailed,
  EngineRateLimited,
  type JudgmentModuleOptions,
  Unassessed,
} from 'nestjs-judgment';
import {
  type Engine,
  type EngineRequest,
  type EngineResponse,
  Provenance,
  MalformedEngineResponse,
} from 'nestjs-judgment/drivers';
import type { Fault, JevSimulator } from 'nestjs-judgment/simulator';
import {
  DB_KINDS,
  type Harness,
  NoteCheck,
  SuiteDatabase,
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
  db = await SuiteDatabase.create('judgment_judge_failures');
  ({ sim, url } = await startSimulator());
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

/** A custom Engine (an Engine class as driver) whose answer each test scripts. */
class ScriptedEngine implements Engine {
  static script: (request: EngineRequest) => unknown = () => {
    throw new Error('No script set.');
  };

  model(): string {
    return 'scripted-1.0.0';
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    return ScriptedEngine.script(request) as EngineResponse;
  }
}

const scriptedProvenance = () =>
  new Provenance('scripted', 'scripted-1.0.0', 'req-scripted-1', { usage: { input_tokens: 7 }, response: { ok: 1 } });

/** The SyntaxError JSON.parse throws for `text`. */
function syntaxErrorOf(text: string): SyntaxError {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as SyntaxError;
  }
  throw new Error(`${text} parsed`);
}

/** A Judgment asked on the custom Engine. */
const onScripted = () => new NoteCheck('Refund please.', { engine: 'scripted' });

describe.each(DB_KINDS)('failed attempts on %s', (kind) => {
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
        engines: { jev: jevConnection(url, { timeout: 0.3 }), scripted: { driver: ScriptedEngine } },
      }),
    });

  it('records an answer to a Question that was not asked as MalformedEngineResponse, with the Provenance of the rejected response', async () => {
    harness = await start();
    ScriptedEngine.script = () => ({ answers: { flagged: 0.4, invented: 0.1 }, provenance: scriptedProvenance() });

    const error = await rejectionOf(harness.judge.assess(onScripted()));

    expect(error).toBeInstanceOf(MalformedEngineResponse);
    expect(error.message).toContain('"invented"');
    expect(error.message).toContain('note-check');
    const [record] = await harness.records();
    expect(record).toMatchObject({
      failureType: 'MalformedEngineResponse',
      failureMessage: error.message,
      answers: null,
      engine: 'scripted',
      model: 'scripted-1.0.0',
      requestId: 'req-scripted-1',
      provenanceDetails: { usage: { input_tokens: 7 }, response: { ok: 1 } },
    });
  });

  it('records a Question left unanswered as MalformedEngineResponse, with the Provenance of the rejected response', async () => {
    harness = await start();
    ScriptedEngine.script = () => ({ answers: {}, provenance: scriptedProvenance() });

    const error = await rejectionOf(harness.judge.assess(onScripted()));

    expect(error).toBeInstanceOf(MalformedEngineResponse);
    expect(error.message).toContain('"flagged"');
    const [record] = await harness.records();
    expect(record).toMatchObject({
      failureType: 'MalformedEngineResponse',
      engine: 'scripted',
      requestId: 'req-scripted-1',
    });
  });

  it('records a custom Engine response without answers as MalformedEngineResponse, with its Provenance', async () => {
    harness = await start();
    ScriptedEngine.script = () => ({ provenance: scriptedProvenance() });

    const error = await rejectionOf(harness.judge.assess(onScripted()));

    expect(error).toBeInstanceOf(MalformedEngineResponse);
    expect(error.message).toContain('{ answers, provenance }');
    const [record] = await harness.records();
    expect(record).toMatchObject({ failureType: 'MalformedEngineResponse', engine: 'scripted', answers: null });
  });

  const driverFailures: Array<[string, Fault, number, string]> = [
    ['HTTP 500', { status: 500 }, 1, 'EngineFailed'],
    ['a timeout', { kind: 'hang' }, 1, 'EngineFailed'],
    ['429 after every retry', { status: 429, retryAfterMs: 1 }, 2, 'EngineRateLimited'],
    ['malformed JSON', { kind: 'malformed', variant: 'non-json' }, 1, 'MalformedEngineResponse'],
  ];

  it.each(driverFailures)(
    'records a driver failure (%s) without Provenance: failure type and message, no answers',
    async (_case, fault, times, failureType) => {
      harness = await start();
      sim.fail(fault, times);

      const error = await rejectionOf(harness.judge.assess(new NoteCheck('Refund please.')));

      expect(error.constructor.name).toBe(failureType);
      expect(decisionRequests(sim)).toHaveLength(times);
      const [record] = await harness.records();
      expect(record).toMatchObject({
        judgment: 'note-check',
        evidence: { note: 'Refund please.' },
        untrustedPaths: ['note'],
        failureType,
        failureMessage: error.message,
        answers: null,
        engine: null,
        model: null,
        requestId: null,
        provenanceDetails: null,
        outcome: null,
      });
      expect(record.isUnassessed()).toBe(true);
    },
  );

  it('fires AssessmentFailed with the record, logs Judgment unassessed., then throws the same EngineFailed', async () => {
    harness = await start();
    sim.fail({ status: 429, retryAfterMs: 1 }, 2);

    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Refund please.')));

    expect(error).toBeInstanceOf(EngineRateLimited);
    expect(harness.captured.trail).toEqual([`event:${AssessmentFailed.NAME}`, 'log:Judgment unassessed.']);
    const [failed] = harness.captured.of(AssessmentFailed);
    const [record] = await harness.records();
    expect(failed.error).toBe(error);
    expect(failed.record?.id).toBe(record.id);
    expect(failed.judgment).toBeInstanceOf(NoteCheck);
  });

  it('returns the failed attempt as Unassessed with its record when throwOnFailure is false', async () => {
    harness = await start({ throwOnFailure: false });
    sim.fail({ status: 500 });

    const result = (await harness.judge.assess(new NoteCheck('Refund please.'))) as unknown as Unassessed<NoteCheck>;

    expect(result).toBeInstanceOf(Unassessed);
    expect(result.error).toBeInstanceOf(EngineFailed);
    expect(result.error).toBe(harness.captured.of(AssessmentFailed)[0].error);
    const [record] = await harness.records();
    expect((result.record as typeof record).id).toBe(record.id);
    expect(record.failureType).toBe('EngineFailed');
    // No answers and no way to an Outcome.
    for (const member of ['likelihood', 'encodedAnswers', 'outcome', 'decide', 'provenance']) {
      expect(member in result).toBe(false);
    }
    expect(Object.isFrozen(result)).toBe(true);
  });

  // Where an error came from decides what it is, not its JavaScript type: fetch reports an outage as
  // TypeError('fetch failed') and JSON.parse a garbled body as SyntaxError, and both are the Engine failing.
  it.each<[string, () => Error]>([
    ["TypeError('fetch failed')", () => new TypeError('fetch failed')],
    ['SyntaxError from JSON.parse', () => syntaxErrorOf('{"answers": ')],
  ])('records a %s thrown by a custom Engine as an Engine failure and announces it', async (_case, make) => {
    harness = await start();
    const original = make();
    ScriptedEngine.script = () => {
      throw original;
    };

    const error = await rejectionOf(harness.judge.assess(onScripted()));

    expect(error.constructor).toBe(EngineFailed);
    expect(error.cause).toBe(original);
    expect(error.message).toContain(original.message);
    const [record] = await harness.records();
    expect(record).toMatchObject({ failureType: 'EngineFailed', failureMessage: error.message, answers: null });
    expect(record.isUnassessed()).toBe(true);
    expect(harness.captured.trail).toEqual([`event:${AssessmentFailed.NAME}`, 'log:Judgment unassessed.']);
    expect(harness.captured.of(AssessmentFailed)[0].error).toBe(error);
  });

  it('returns a TypeError thrown by a custom Engine as Unassessed when throwOnFailure is false', async () => {
    harness = await start({ throwOnFailure: false });
    ScriptedEngine.script = () => {
      throw new TypeError('fetch failed');
    };

    const result = (await harness.judge.assess(onScripted())) as unknown as Unassessed<NoteCheck>;

    expect(result).toBeInstanceOf(Unassessed);
    expect(result.error).toBeInstanceOf(EngineFailed);
    expect(result.error.cause).toBeInstanceOf(TypeError);
    const [record] = await harness.records();
    expect((result.record as typeof record).id).toBe(record.id);
    expect(record.failureType).toBe('EngineFailed');
  });

  it('lets a programming error raised before the Engine is asked pass through unrecorded and unannounced', async () => {
    harness = await start({ throwOnFailure: false });
    const bug = new TypeError('a bug in evidence()');
    class BrokenNote extends NoteCheck {
      override evidence(): never {
        throw bug;
      }
    }
    let asked = false;
    ScriptedEngine.script = () => {
      asked = true;
      throw new Error('the Engine must not be asked');
    };

    const error = await rejectionOf(harness.judge.assess(new BrokenNote('Refund please.', { engine: 'scripted' })));

    expect(error).toBe(bug);
    expect(asked).toBe(false);
    expect(await harness.records()).toHaveLength(0);
    expect(harness.captured.trail).toEqual([]);
  });

  it('wraps any other error of a custom Engine in EngineFailed, with the error as cause', async () => {
    harness = await start();
    const original = new Error('the socket closed');
    ScriptedEngine.script = () => {
      throw original;
    };

    const error = await rejectionOf(harness.judge.assess(onScripted()));

    expect(error.constructor).toBe(EngineFailed);
    expect(error.cause).toBe(original);
    expect(error.message).toContain('note-check');
    expect(error.message).toContain('the socket closed');
    const [record] = await harness.records();
    expect(record).toMatchObject({ failureType: 'EngineFailed', failureMessage: error.message, engine: null });
    expect(harness.captured.of(AssessmentFailed)[0].error).toBe(error);
  });
});
