import { Injectable, type INestApplication } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import {
  AssessmentCompleted,
  AssessmentDecided,
  AssessmentFailed,
  Decision,
  EngineFailed,
  EngineRateLimited,
  Judge,
  JudgmentModule,
  ReviewRequested,
  Unassessed,
} from 'nestjs-judgment';
import {
  FakeJudge,
  JudgmentAssertionError,
  type JudgmentScripts,
  JudgmentTestingModule,
  type JudgmentTestingOptions,
  fakeAssessment,
  fakeJudge,
  sequence,
  ExhaustedSequence,
  ImpureDecision,
  UnscriptedJudgment,
  AnswerSource,
  UndeclaredQuestion,
} from 'nestjs-judgment/testing';
import {
  Department,
  RefundAbuse,
  RefundDecision,
  RefundOutcome,
  SupportTicket,
  aRefund,
  aTicket,
} from './fixtures.spec-helpers';
import { CapturedLogger, EventLog } from './testing.spec-helpers';

/** A RefundAbuse subclass (registered under its own class name): instance-of assertions match it as RefundAbuse. */
class PriorityRefund extends RefundAbuse {}

enum Coin {
  Heads = 'heads',
  Tails = 'tails',
}

@Decision({ outcomes: Coin })
class CoinFlip implements Decision<RefundAbuse, Coin> {
  private flips = 0;
  decide(): Coin {
    this.flips += 1;
    return this.flips % 2 === 0 ? Coin.Heads : Coin.Tails;
  }
}

const refund = (refundsThisYear = 0) => new RefundAbuse(aRefund({ refundsThisYear }));
const ticket = () => new SupportTicket(aTicket());
const clean = { abusive: 0.1, credibility: 3 };
const abusive = { abusive: 0.5, credibility: 3 };

interface Started {
  app: INestApplication;
  fake: FakeJudge;
  judge: Judge;
  log: EventLog;
  logger: CapturedLogger;
}

const apps: INestApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** An app with JudgmentTestingModule and persistence off (no database). */
async function start(scripts: JudgmentScripts, options: JudgmentTestingOptions = {}): Promise<Started> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      EventEmitterModule.forRoot(),
      JudgmentTestingModule.forRoot({ persistence: { enabled: false }, dataSource: false, ...options, scripts }),
      JudgmentModule.forFeature([RefundAbuse, SupportTicket]),
    ],
    providers: [EventLog],
  }).compile();
  const logger = new CapturedLogger();
  const app = moduleRef.createNestApplication({ logger });
  apps.push(app);
  await app.init();
  return { app, fake: app.get(FakeJudge), judge: app.get(Judge), log: app.get(EventLog), logger };
}

describe('FakeJudge scripts', () => {
  it('a static script answers with those answers, Provenance engine and model fake', async () => {
    const { judge } = await start({ 'refund-abuse': clean });
    const assessment = await judge.assess(refund());
    expect(assessment.likelihood('abusive').probability).toBe(0.1);
    expect(assessment.rating('credibility').level).toBe(3);
    expect(assessment.provenance).toMatchObject({ engine: 'fake', model: 'fake', requestId: null, details: {} });
  });

  it('a script function receives the Judgment and returns answers', async () => {
    const { judge } = await start({
      'refund-abuse': (j: RefundAbuse) => ({ abusive: j.refund.refundsThisYear / 10, credibility: 0 }),
    });
    expect((await judge.assess(refund(7))).likelihood('abusive').probability).toBe(0.7);
  });

  it('a script function may return a fake Assessment builder', async () => {
    const { judge } = await start({
      SupportTicket: (j: SupportTicket) => fakeAssessment(j).classification('department', Department.Sales),
    });
    expect((await judge.assess(ticket())).classification('department').label).toBe(Department.Sales);
  });

  it('scripts are keyed by the registered Judgment name, not the class name', async () => {
    const { judge } = await start({ RefundAbuse: clean });
    await expect(judge.assess(refund())).rejects.toThrow(
      'The fake Judge has no script for refund-abuse (scripted: RefundAbuse)',
    );
  });

  it("a subclass is not scripted by its parent's script (it has its own registered name)", async () => {
    const { judge } = await start({ 'refund-abuse': clean });
    await expect(judge.assess(new PriorityRefund(aRefund()))).rejects.toThrow(
      'no script for PriorityRefund (scripted: refund-abuse)',
    );
  });

  it('a sequence answers each assessment of the Judgment with the next script', async () => {
    const { judge } = await start({
      'refund-abuse': sequence(
        { abusive: 0.2 },
        () => ({ abusive: 0.4 }),
        (j: RefundAbuse) => fakeAssessment(j).likelihood('abusive', 0.6),
      ),
      SupportTicket: { urgent: 1 },
    });
    const probabilities = [];
    for (let i = 0; i < 3; i++) {
      await judge.assess(ticket());
      probabilities.push((await judge.assess(refund())).likelihood('abusive').probability);
    }
    expect(probabilities).toEqual([0.2, 0.4, 0.6]);
  });

  it('a sequence that runs out throws ExhaustedSequence naming the 1-based assessment number', async () => {
    const { judge } = await start({ 'refund-abuse': sequence(clean) });
    await judge.assess(refund());
    const error = await judge.assess(refund()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExhaustedSequence);
    expect((error as Error).message).toContain('refund-abuse was assessed a #2 time');
  });

  it('an unscripted Judgment throws UnscriptedJudgment listing the scripted names, unannounced', async () => {
    const { judge, log } = await start({ 'refund-abuse': clean, Other: {} });
    await expect(judge.assess(ticket())).rejects.toThrow(UnscriptedJudgment);
    await expect(judge.assess(ticket())).rejects.toThrow('(scripted: refund-abuse, Other)');
    expect(log.events).toEqual([]);
  });

  it('with no scripts at all, UnscriptedJudgment says none are scripted', async () => {
    const { judge } = await start({});
    await expect(judge.assess(ticket())).rejects.toThrow('no script for SupportTicket (scripted: none)');
  });

  it('a script throwing EngineFailed fails the attempt: AssessmentFailed fires, then the error is thrown', async () => {
    const failure = new EngineRateLimited('Too many requests.');
    const { judge, log } = await start({
      'refund-abuse': () => {
        throw failure;
      },
    });
    await expect(judge.assess(refund())).rejects.toBe(failure);
    expect(log.names()).toEqual(['AssessmentFailed']);
    expect(log.of(AssessmentFailed)[0]).toMatchObject({ error: failure, record: null });
  });

  it('with throwOnFailure false a scripted failure is returned as Unassessed', async () => {
    const { judge } = await start(
      {
        'refund-abuse': () => {
          throw new EngineFailed('The Engine is down.');
        },
      },
      { throwOnFailure: false },
    );
    const judgment = refund();
    const result = (await judge.assess(judgment)) as unknown as Unassessed;
    expect(result).toBeInstanceOf(Unassessed);
    expect(result.judgment).toBe(judgment);
    expect(result.error.message).toBe('The Engine is down.');
  });

  it('other errors a script throws pass through unannounced', async () => {
    const bug = new TypeError('oops');
    const { judge, log } = await start({
      'refund-abuse': () => {
        throw bug;
      },
    });
    await expect(judge.assess(refund())).rejects.toBe(bug);
    expect(log.events).toEqual([]);
  });

  it('scripting errors are raw (an undeclared key throws UndeclaredQuestion)', async () => {
    const { judge, log } = await start({ 'refund-abuse': { abusiveness: 0.5 } });
    await expect(judge.assess(refund())).rejects.toThrow(UndeclaredQuestion);
    expect(log.events).toEqual([]);
  });

  it('a script giving neither answers nor a builder says what a script must be', async () => {
    const { judge } = await start({ 'refund-abuse': () => undefined as never });
    await expect(judge.assess(refund())).rejects.toThrow(
      'The script for refund-abuse gave undefined: a script must be answers',
    );
  });

  it('script() re-scripts a Judgment and restarts its sequence; reset() forgets what happened', async () => {
    const { fake, judge } = await start({ 'refund-abuse': sequence(clean) });
    await judge.assess(refund());
    fake.script('refund-abuse', sequence(abusive));
    expect((await judge.assess(refund())).likelihood('abusive').probability).toBe(0.5);
    fake.reset();
    fake.assertNothingAssessed();
    expect(fake.lastModel()).toBeNull();
  });
});

describe('FakeJudge in the module', () => {
  it('no Engine connection is built or asked: an app with none configured starts and assesses', async () => {
    const { judge } = await start({ 'refund-abuse': clean }, { engine: 'never-configured', engines: {} });
    expect((await judge.assess(refund())).likelihood('abusive').probability).toBe(0.1);
  });

  it("the fake's usage() is 0, and its lastModel() is fake after an assessment (null before)", async () => {
    const { judge, fake } = await start({ 'refund-abuse': clean });
    expect(fake.lastModel()).toBeNull();
    await judge.assess(refund());
    expect(fake.usage()).toBe(0);
    expect(fake.lastModel()).toBe('fake');
  });

  it('never reads or writes the cache (a cached Judgment gets its next script)', async () => {
    const { judge } = await start({ 'refund-abuse': sequence(clean, abusive) });
    await judge.assess(refund());
    expect((await judge.assess(refund())).likelihood('abusive').probability).toBe(0.5);
  });

  it('AssessmentCompleted fires with the Assessment and, persistence off, a null record', async () => {
    const { judge, log } = await start({ 'refund-abuse': clean });
    const judgment = refund();
    const assessment = await judge.assess(judgment);
    expect(log.of(AssessmentCompleted)).toEqual([expect.objectContaining({ judgment, assessment, record: null })]);
  });

  it('logs like the Judge: `Judgment assessed.`, `Judgment decided.`, `Judgment unassessed.`', async () => {
    const { judge, logger } = await start({
      'refund-abuse': sequence(clean, () => {
        throw new EngineFailed('down');
      }),
    });
    await (await judge.assess(refund())).outcome();
    await judge.assess(refund()).catch(() => undefined);
    expect(logger.messages.filter((m) => m.startsWith('Judgment'))).toEqual([
      'Judgment assessed.',
      'Judgment decided.',
      'Judgment unassessed.',
    ]);
  });

  it("deciding records through the Judge's link: AssessmentDecided, and ReviewRequested once, with a null record", async () => {
    const { judge, log } = await start({ 'refund-abuse': abusive });
    const assessment = await judge.assess(refund());
    const awaiting = { outcome: RefundOutcome.Escalate, reason: { cause: 'band' }, recordId: null };
    expect(await assessment.outcome()).toMatchObject(awaiting);
    expect(await assessment.outcome()).toMatchObject(awaiting);
    expect(log.names()).toEqual(['AssessmentCompleted', 'ReviewRequested', 'AssessmentDecided', 'AssessmentDecided']);
    expect(log.of(ReviewRequested)[0]).toMatchObject({ outcome: RefundOutcome.Escalate, record: null });
    expect(log.of(AssessmentDecided)[0].decision).toBeInstanceOf(RefundDecision);
  });

  it('deciding a fake-made Assessment runs the Decision twice (ImpureDecision)', async () => {
    const { judge, log } = await start({ 'refund-abuse': clean });
    const assessment = await judge.assess(refund());
    await expect(assessment.decide(new CoinFlip())).rejects.toThrow(ImpureDecision);
    expect(log.of(AssessmentDecided)).toEqual([]);
  });

  it('dispatch() is remembered and runs through the app dispatcher: assessed and decided by the fake', async () => {
    const { judge, fake, log } = await start({ 'refund-abuse': abusive });
    await judge.dispatch(refund(6));
    fake.assertDispatched(RefundAbuse, (j) => j.refund.refundsThisYear === 6);
    fake.assertAssessed(RefundAbuse, (j) => j.refund.refundsThisYear === 6);
    expect(log.names()).toEqual(['AssessmentCompleted', 'ReviewRequested', 'AssessmentDecided']);
  });

  it('overrideProvider(AnswerSource).useValue(fakeJudge(scripts)) works with JudgmentModule.forRoot()', async () => {
    @Injectable()
    class Refunds {
      constructor(private readonly judge: Judge) {}
      async decide(judgment: RefundAbuse) {
        return (await this.judge.assess(judgment)).outcome();
      }
    }
    const fake = fakeJudge({ 'refund-abuse': abusive });
    const moduleRef = await Test.createTestingModule({
      imports: [
        EventEmitterModule.forRoot(),
        JudgmentModule.forRoot({
          persistence: { enabled: false },
          dataSource: false,
          engine: 'mock',
          engines: { mock: { driver: 'mock' } },
        }),
        JudgmentModule.forFeature([RefundAbuse]),
      ],
      providers: [Refunds, EventLog],
    })
      .overrideProvider(AnswerSource)
      .useValue(fake)
      .compile();
    const app = moduleRef.createNestApplication({ logger: false });
    apps.push(app);
    await app.init();
    expect(await app.get(Refunds).decide(refund())).toMatchObject({ outcome: RefundOutcome.Escalate });
    expect(app.get(EventLog).names()).toEqual(['AssessmentCompleted', 'ReviewRequested', 'AssessmentDecided']);
    fake.assertAssessed(RefundAbuse);
    await fake.assertAwaitingReview(RefundAbuse);
  });
});

describe('FakeJudge assertions', () => {
  it('assertAssessed passes when a Judgment of the class was assessed, and says what was assessed otherwise', async () => {
    const { fake, judge } = await start({ SupportTicket: { urgent: 0 }, 'refund-abuse': clean });
    expect(failure(() => fake.assertAssessed(RefundAbuse))).toBe(
      'Expected RefundAbuse ("refund-abuse") to be assessed, but it was not (assessed: nothing).',
    );
    await judge.assess(ticket());
    await judge.assess(ticket());
    expect(failure(() => fake.assertAssessed(RefundAbuse))).toBe(
      'Expected RefundAbuse ("refund-abuse") to be assessed, but it was not (assessed: SupportTicket ×2).',
    );
    await judge.assess(refund());
    fake.assertAssessed(RefundAbuse);
  });

  it('assertAssessed with a predicate passes the Judgment and counts the ones that did not match', async () => {
    const { fake, judge } = await start({ 'refund-abuse': clean });
    await judge.assess(refund(1));
    await judge.assess(refund(2));
    fake.assertAssessed(RefundAbuse, (j) => j.refund.refundsThisYear === 2);
    expect(failure(() => fake.assertAssessed(RefundAbuse, (j) => j.refund.refundsThisYear === 5))).toBe(
      'Expected RefundAbuse ("refund-abuse") to be assessed matching the predicate, but none of the 2 assessed matched.',
    );
  });

  it('class filters use instanceof: a subclass counts as its parent class', async () => {
    const { fake, judge } = await start({ PriorityRefund: clean });
    await judge.assess(new PriorityRefund(aRefund()));
    fake.assertAssessed(RefundAbuse);
    fake.assertNotAssessed(SupportTicket);
    expect(failure(() => fake.assertNotAssessed(RefundAbuse))).toBe(
      'Expected RefundAbuse ("refund-abuse") not to be assessed, but it was, 1 time.',
    );
  });

  it('assertNotAssessed counts the matching assessments', async () => {
    const { fake, judge } = await start({ 'refund-abuse': clean });
    fake.assertNotAssessed(RefundAbuse);
    await judge.assess(refund(1));
    await judge.assess(refund(1));
    await judge.assess(refund(2));
    fake.assertNotAssessed(RefundAbuse, (j) => j.refund.refundsThisYear === 3);
    expect(failure(() => fake.assertNotAssessed(RefundAbuse, (j) => j.refund.refundsThisYear === 1))).toBe(
      'Expected RefundAbuse ("refund-abuse") not to be assessed matching the predicate, but it was, 2 times.',
    );
  });

  it('assertNothingAssessed names what was assessed, attempts that failed included', async () => {
    const { fake, judge } = await start({ 'refund-abuse': clean });
    fake.assertNothingAssessed();
    await judge.assess(refund());
    await judge.assess(ticket()).catch(() => undefined);
    expect(failure(() => fake.assertNothingAssessed())).toBe(
      'Expected nothing to be assessed, but 2 Judgments were: RefundAbuse ("refund-abuse") ×1, SupportTicket ×1.',
    );
  });

  it('assertDispatched and assertNotDispatched look at dispatch() only', async () => {
    const { fake, judge } = await start({ 'refund-abuse': clean });
    await judge.assess(refund());
    fake.assertNotDispatched(RefundAbuse);
    expect(failure(() => fake.assertDispatched(RefundAbuse))).toBe(
      'Expected RefundAbuse ("refund-abuse") to be dispatched, but it was not (dispatched: nothing).',
    );
    await judge.dispatch(refund(4));
    fake.assertDispatched(RefundAbuse, (j) => j.refund.refundsThisYear === 4);
    expect(failure(() => fake.assertDispatched(RefundAbuse, (j) => j.refund.refundsThisYear === 0))).toBe(
      'Expected RefundAbuse ("refund-abuse") to be dispatched matching the predicate, but none of the 1 dispatched matched.',
    );
    expect(failure(() => fake.assertNotDispatched(RefundAbuse, (j) => j.refund.refundsThisYear === 4))).toBe(
      'Expected RefundAbuse ("refund-abuse") not to be dispatched matching the predicate, but it was, 1 time.',
    );
  });

  it('assertAwaitingReview uses the in-memory mark when nothing is recorded, and passes judgment and Outcome', async () => {
    const { fake, judge } = await start({ 'refund-abuse': sequence(abusive, clean) });
    const escalated = await judge.assess(refund(1));
    await (await judge.assess(refund(2))).outcome();
    await expect(fake.assertAwaitingReview(RefundAbuse)).rejects.toThrow(
      'Expected RefundAbuse ("refund-abuse") to await Review, but it did not: 2 RefundAbuse ("refund-abuse") ' +
        'Assessment(s) made, none in Review.',
    );
    await escalated.outcome();
    const seen: Array<[RefundAbuse, unknown]> = [];
    await fake.assertAwaitingReview(RefundAbuse, (j, outcome) => {
      seen.push([j, outcome]);
      return outcome === RefundOutcome.Escalate;
    });
    expect(seen).toEqual([[escalated.judgment, RefundOutcome.Escalate]]);
    await expect(fake.assertAwaitingReview(RefundAbuse, (j) => j.refund.refundsThisYear === 2)).rejects.toThrow(
      'Expected RefundAbuse ("refund-abuse") to await Review matching the predicate, but none of the 1 awaiting ' +
        'Review matched.',
    );
  });

  it('a failed assertion throws an Error named JudgmentAssertionError, which Jest reports by name and message', async () => {
    const { fake } = await start({ 'refund-abuse': clean });
    let thrown: unknown;
    try {
      fake.assertAssessed(RefundAbuse);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(String(thrown)).toBe(
      'JudgmentAssertionError: Expected RefundAbuse ("refund-abuse") to be assessed, but it was not (assessed: nothing).',
    );
  });
});

describe('FakeJudge and the app events', () => {
  it('hears each event once though JudgmentTestingModule provides it under two tokens', async () => {
    const { fake, judge } = await start({ 'refund-abuse': clean });
    await judge.dispatch(refund(1));
    expect(failure(() => fake.assertNotDispatched(RefundAbuse))).toBe(
      'Expected RefundAbuse ("refund-abuse") not to be dispatched, but it was, 1 time.',
    );
  });

  it('JudgmentTestingModule tells the fake each event itself: its assertions hold without EventEmitterModule', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        JudgmentTestingModule.forRoot({
          persistence: { enabled: false },
          dataSource: false,
          scripts: { 'refund-abuse': abusive },
        }),
        JudgmentModule.forFeature([RefundAbuse]),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    apps.push(app);
    await app.init();
    const fake = app.get(FakeJudge);
    await app.get(Judge).dispatch(refund(4));
    fake.assertAssessed(RefundAbuse);
    fake.assertDispatched(RefundAbuse, (j) => j.refund.refundsThisYear === 4);
    expect(failure(() => fake.assertNotDispatched(RefundAbuse))).toBe(
      'Expected RefundAbuse ("refund-abuse") not to be dispatched, but it was, 1 time.',
    );
    await fake.assertAwaitingReview(RefundAbuse);
  });

  it('with overrideProvider(AnswerSource) and no EventEmitterModule its dispatch and Review assertions say the events do not reach it', async () => {
    const fake = fakeJudge({ 'refund-abuse': abusive });
    const moduleRef = await Test.createTestingModule({
      imports: [
        JudgmentModule.forRoot({
          persistence: { enabled: false },
          dataSource: false,
          engine: 'mock',
          engines: { mock: { driver: 'mock' } },
        }),
        JudgmentModule.forFeature([RefundAbuse]),
      ],
    })
      .overrideProvider(AnswerSource)
      .useValue(fake)
      .compile();
    const app = moduleRef.createNestApplication({ logger: false });
    apps.push(app);
    await app.init();
    await app.get(Judge).dispatch(refund());
    fake.assertAssessed(RefundAbuse);
    const told =
      "The fake Judge answered, but none of the app's events reached it: it learns of dispatches, Assessments and " +
      'Reviews from them. With overrideProvider(AnswerSource), import EventEmitterModule.forRoot() in the test ' +
      'module and init the app (app.init() or moduleRef.init()); JudgmentTestingModule.forRoot() tells it itself.';
    expect(failure(() => fake.assertDispatched(RefundAbuse))).toBe(told);
    expect(failure(() => fake.assertNotDispatched(RefundAbuse))).toBe(told);
    await expect(fake.assertAwaitingReview(RefundAbuse)).rejects.toThrow(told);
  });
});

/** The message of the JudgmentAssertionError the assertion throws. */
function failure(assertion: () => unknown): string {
  try {
    assertion();
  } catch (error) {
    expect(error).toBeInstanceOf(JudgmentAssertionError);
    return (error as Error).message;
  }
  throw new Error('The assertion passed.');
}
