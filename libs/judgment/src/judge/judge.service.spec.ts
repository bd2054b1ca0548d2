// The Judge's assess → record → decide paths on SQLite in memory with an Engine class as driver: the fast inner loop
// for pipeline changes (no PostgreSQL, no HTTP). The e2e suites under test/judge cover the same rules on PostgreSQL.
import { Injectable, type INestApplication, Module } from '@nestjs/common';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  type Assessment,
  AssessmentCompleted,
  AssessmentDispatched,
  AssessmentFailed,
  AssessmentRecord,
  AssessmentRecords,
  Decision,
  EngineFailed,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  type JudgmentModuleOptions,
  Likelihood,
  ReviewRequested,
  Unassessed,
} from 'nestjs-judgment';
import { type Engine, type EngineResponse, Provenance } from 'nestjs-judgment/drivers';
import { ImpureDecision, UnscriptedQuestion } from 'nestjs-judgment/testing';
import { EventLog } from '../testing/testing.spec-helpers';

enum Verdict {
  Keep = 'keep',
  Check = 'check',
  Remove = 'remove',
}

@Decision({ outcomes: Verdict, review: [Verdict.Check], version: '1' })
class Moderate implements Decision<NoteCheck, Verdict> {
  decide(assessment: Assessment<NoteCheck>): Verdict {
    const flagged = assessment.likelihood('flagged');
    if (flagged.above(0.8)) return Verdict.Remove;
    return flagged.above(0.4) ? Verdict.Check : Verdict.Keep;
  }
}

@Judgment({ name: 'note-check', decision: () => Moderate })
class NoteCheck implements Judgment {
  constructor(
    readonly note: string,
    readonly broken = false,
  ) {}

  evidence() {
    if (this.broken) throw new TypeError('a bug in evidence()');
    return { note: Evidence.untrusted(this.note) };
  }

  questions() {
    return { flagged: Likelihood.that('Does the note break the rules?') };
  }
}

/** The Engine class every test scripts: it answers `flagged` with the probability written in the note, or throws. */
@Injectable()
class NoteEngine implements Engine {
  static failure: Error | null = null;
  calls = 0;

  model(): string {
    return 'note-1.0.0';
  }

  async answer(): Promise<EngineResponse> {
    this.calls += 1;
    if (NoteEngine.failure) throw NoteEngine.failure;
    return { answers: { flagged: 0.5 }, provenance: new Provenance('note', 'note-1.0.0', `req-${this.calls}`) };
  }
}

/** An Engine of answers written in advance (Engine.scripted): it answers what `answers` holds, maybe nothing. */
@Injectable()
class PrewrittenEngine implements Engine {
  static answers: Record<string, number> = {};
  static calls = 0;
  readonly scripted = true;

  model(): string {
    return 'prewritten-1';
  }

  async answer(): Promise<EngineResponse> {
    PrewrittenEngine.calls += 1;
    return { answers: { ...PrewrittenEngine.answers }, provenance: new Provenance('prewritten', 'prewritten-1') };
  }
}

/** Keeps the AssessmentDispatched events. */
@Injectable()
class Dispatches {
  readonly seen: AssessmentDispatched[] = [];

  @OnEvent(AssessmentDispatched.NAME)
  keep(event: AssessmentDispatched): void {
    this.seen.push(event);
  }
}

const apps: INestApplication[] = [];
afterEach(async () => {
  NoteEngine.failure = null;
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function start(options: JudgmentModuleOptions = {}) {
  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        autoLoadEntities: true,
        synchronize: true,
      }),
      EventEmitterModule.forRoot(),
      JudgmentModule.forRoot({ engine: 'notes', engines: { notes: { driver: NoteEngine } }, log: false, ...options }),
      JudgmentModule.forFeature([NoteCheck]),
    ],
    providers: [EventLog, Dispatches],
  })
  class AppModule {}
  const app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({
    logger: false,
  });
  apps.push(app);
  await app.init();
  const rows = () =>
    app
      .get(DataSource)
      .getRepository(AssessmentRecord)
      .find({ order: { id: 'ASC' } });
  return { app, judge: app.get(Judge), log: app.get(EventLog), dispatches: app.get(Dispatches), rows };
}

describe('Judge on SQLite in memory', () => {
  it('records the answered attempt, then records the Outcome on that same record', async () => {
    const { judge, rows } = await start();
    const assessment = await judge.assess(new NoteCheck('Buy cheap watches!'));
    const [answered] = await rows();
    expect(answered).toMatchObject({ judgment: 'note-check', answers: { flagged: 0.5 }, requestId: 'req-1' });
    expect(answered.outcome).toBeNull();

    expect(await assessment.outcome()).toMatchObject({
      outcome: Verdict.Check,
      reason: { cause: 'band' },
      recordId: answered.id,
    });
    expect(await rows()).toEqual([
      expect.objectContaining({ id: answered.id, decision: 'Moderate', decisionVersion: '1', outcome: 'check' }),
    ]);
  });

  it('an Outcome that needs Review enters it once, however often the Assessment is decided', async () => {
    const { judge, log, rows } = await start();
    const assessment = await judge.assess(new NoteCheck('Maybe spam.'));
    await assessment.outcome();
    await assessment.outcome();
    expect(log.of(ReviewRequested)).toHaveLength(1);
    expect((await rows())[0].isAwaitingReview()).toBe(true);
  });

  it('deciding from a record (the queue decide job) writes the Outcome on that record', async () => {
    const { app, judge, rows } = await start();
    await judge.assess(new NoteCheck('Maybe spam.'));
    const [record] = await rows();
    expect(await app.get(AssessmentRecords).outcome(record, new NoteCheck('Maybe spam.'))).toMatchObject({
      outcome: Verdict.Check,
      recordId: record.id,
    });
    expect((await rows())[0]).toMatchObject({ outcome: 'check' });
  });

  it('a Replay computes the Outcome and writes nothing', async () => {
    const { app, judge, rows } = await start();
    await judge.assess(new NoteCheck('Maybe spam.'));
    const [record] = await rows();
    const replay = await app.get(AssessmentRecords).rebuild(record, new NoteCheck('Maybe spam.'));
    expect(await replay.outcome()).toMatchObject({ outcome: Verdict.Check, recordId: null });
    expect((await rows())[0].outcome).toBeNull();
  });

  it('an inline dispatch assesses, records and decides from the record', async () => {
    const { judge, log, rows } = await start();
    await judge.dispatch(new NoteCheck('Maybe spam.'));
    expect(await rows()).toEqual([expect.objectContaining({ answers: { flagged: 0.5 }, outcome: 'check' })]);
    expect(log.names()).toEqual(['AssessmentCompleted', 'ReviewRequested', 'AssessmentDecided']);
  });

  it('dispatch() announces AssessmentDispatched with the Judgment and the job id it resolves to', async () => {
    const { judge, dispatches } = await start();
    const note = new NoteCheck('Maybe spam.');
    const jobId = await judge.dispatch(note);
    expect(jobId).toMatch(/^inline-/);
    expect(dispatches.seen).toEqual([expect.objectContaining({ judgment: note, jobId })]);
  });

  it('a dispatch that throws announces nothing', async () => {
    const { judge, dispatches } = await start();
    await expect(judge.dispatch(new NoteCheck('Anything.', true))).rejects.toThrow(TypeError);
    expect(dispatches.seen).toEqual([]);
  });

  it.each([
    ['TypeError', () => new TypeError('fetch failed')],
    ['SyntaxError', () => new SyntaxError('Unexpected end of JSON input')],
    ['Error', () => new Error('socket hang up')],
  ])('a %s thrown by the Engine is an Engine failure: recorded, announced, returned as Unassessed', async (_, make) => {
    const { judge, log, rows } = await start({ throwOnFailure: false });
    NoteEngine.failure = make();
    const result = (await judge.assess(new NoteCheck('Anything.'))) as unknown as Unassessed;
    expect(result).toBeInstanceOf(Unassessed);
    expect(result.error).toBeInstanceOf(EngineFailed);
    expect(result.error.cause).toBe(NoteEngine.failure);
    const [row] = await rows();
    expect(row).toMatchObject({ failureType: 'EngineFailed', answers: null });
    expect(log.of(AssessmentFailed).map((event) => event.record?.id)).toEqual([row.id]);
  });

  it('an error raised before the Engine is asked passes through: nothing is recorded or announced', async () => {
    const { judge, log, rows } = await start({ throwOnFailure: false });
    await expect(judge.assess(new NoteCheck('Anything.', true))).rejects.toThrow(TypeError);
    expect(await rows()).toEqual([]);
    expect(log.events).toEqual([]);
  });

  it('AssessmentCompleted carries the record the attempt was written to', async () => {
    const { judge, log, rows } = await start();
    await judge.assess(new NoteCheck('Hello.'));
    const [row] = await rows();
    expect(log.of(AssessmentCompleted).map((event) => event.record?.id)).toEqual([row.id]);
  });
});

describe('an Engine that declares its answers written in advance (Engine.scripted)', () => {
  afterEach(() => {
    PrewrittenEngine.answers = {};
    PrewrittenEngine.calls = 0;
  });
  const prewritten = { engines: { notes: { driver: PrewrittenEngine } } };

  it('may leave Questions unanswered: recorded without them, reading one throws UnscriptedQuestion', async () => {
    const { judge, rows } = await start(prewritten);
    const assessment = await judge.assess(new NoteCheck('Anything.'));
    expect(assessment.isAnswered('flagged')).toBe(false);
    expect(() => assessment.likelihood('flagged')).toThrow(UnscriptedQuestion);
    expect(await rows()).toEqual([
      expect.objectContaining({ answers: {}, engine: 'prewritten', cost: null, costBasis: expect.any(Object) }),
    ]);
    expect((await rows())[0].costBasis).toMatchObject({ note: expect.stringMatching(/^Scripted answers/) });
  });

  it('is never cached: a cached Judgment asks it again', async () => {
    PrewrittenEngine.answers = { flagged: 0.2 };
    const { judge, rows } = await start(prewritten);
    const cached = () => Object.assign(new NoteCheck('Cache me.'), { cacheFor: () => 60 });
    await judge.assess(cached());
    await judge.assess(cached());
    expect(PrewrittenEngine.calls).toBe(2);
    expect((await rows()).map((row) => row.cachedFromId)).toEqual([null, null]);
  });

  it('decides by running each Decision twice: an impure one fails with ImpureDecision', async () => {
    PrewrittenEngine.answers = { flagged: 0.2 };
    const { judge } = await start(prewritten);
    let calls = 0;
    @Decision({ outcomes: Verdict })
    class Alternating implements Decision<NoteCheck, Verdict> {
      decide(): Verdict {
        calls += 1;
        return calls % 2 === 0 ? Verdict.Keep : Verdict.Remove;
      }
    }
    await expect((await judge.assess(new NoteCheck('Anything.'))).decide(new Alternating())).rejects.toThrow(
      ImpureDecision,
    );
    expect(calls).toBe(2);
  });
});

describe('cacheFor() is checked', () => {
  it.each([NaN, Infinity, -1, '60'])('a cacheFor() of %p is refused before the Engine is asked', async (seconds) => {
    const { judge, rows } = await start();
    const check = Object.assign(new NoteCheck('hello'), { cacheFor: () => seconds as number });
    await expect(judge.assess(check)).rejects.toThrow(/cacheFor\(\) must return a finite number of seconds/);
    expect(await rows()).toEqual([]);
  });
});
