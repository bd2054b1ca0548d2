// The signal-collapse guard end to end: calibrate over the simulator's OpenAI mode, lock (the lock keeps the run's
// near-certain share and mean entropy), then run the app under the lock while the simulated model collapses (every
// answer at about 100 %): SignalCollapsed fires once, the metric counts it, the guard holds it until the answers carry
// their signal again, and with onDrift 'review' the caller's outcome() awaits Review (the record on PostgreSQL says
// why).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import {
  AwaitingReview,
  Classification,
  Decision,
  Evidence,
  Judgment,
  Likelihood,
  Rating,
  type Assessment,
  type JudgmentModuleOptions,
} from 'nestjs-judgment';
import {
  Calibration,
  CalibrationLock,
  LabelledCase,
  SignalCollapsed,
  lockCalibration,
} from 'nestjs-judgment/calibration';
import { startOpenAiSimulator, type RunningOpenAiSimulator } from 'nestjs-judgment/simulator';
import { SignalGuard } from '../../libs/judgment/src/signal/signal.guard';
import {
  type Telemetry,
  collectMetrics,
  counted,
  registerTelemetry,
  unregisterTelemetry,
} from '../telemetry/telemetry.fixtures';
import { type Harness, SuiteDatabase, startApp } from './support';

enum TicketOutcome {
  Close = 'close',
  Escalate = 'escalate',
}

@Decision({ name: 'ticket-decision', outcomes: TicketOutcome, version: '1' })
class TicketDecision implements Decision<TicketCheck, TicketOutcome> {
  decide(assessment: Assessment<TicketCheck>): TicketOutcome {
    return assessment.likelihood('urgent').above(0.5) ? TicketOutcome.Escalate : TicketOutcome.Close;
  }
}

/** Three Questions a round: three answers for the guard's window. */
@Judgment({ name: 'ticket-check', decision: () => TicketDecision })
class TicketCheck implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { ticket: Evidence.untrusted(this.text) };
  }
  questions() {
    return {
      urgent: Likelihood.that('Is the ticket urgent?'),
      team: Classification.of('Which team?', ['billing', 'tech', 'sales']),
      tone: Rating.of('How upset is the customer?', ['calm', 'annoyed', 'upset', 'furious']),
    };
  }
}

@Injectable()
class CollapseLog {
  readonly collapsed: SignalCollapsed[] = [];
  @OnEvent(SignalCollapsed.NAME)
  onCollapse(event: SignalCollapsed) {
    this.collapsed.push(event);
  }
}

let sim: RunningOpenAiSimulator;
let db: SuiteDatabase;
let lockFile: string;
let telemetry: Telemetry;
const harnesses: Harness[] = [];

const options = (calibration: JudgmentModuleOptions['calibration'] = {}, persist = false): JudgmentModuleOptions => ({
  engine: 'openai',
  persistence: { enabled: persist },
  calibration,
  engines: { openai: { driver: 'openai', url: sim.url, model: sim.model, timeout: 5, retries: 0 } },
});

/** An app on the simulator under `calibration`; with `persist`, its records on the suite's PostgreSQL database. */
async function app(calibration?: JudgmentModuleOptions['calibration'], persist = false): Promise<Harness> {
  const harness = await startApp({
    typeOrm: persist ? db.typeOrm('postgres') : null,
    options: options(calibration, persist),
    extras: persist ? {} : { dataSource: false },
    judgments: [TicketCheck],
    providers: [CollapseLog],
  });
  harnesses.push(harness);
  return harness;
}

/** Assesses `rounds` tickets (each text its own, so the simulated answers vary). */
async function assess(harness: Harness, rounds: number, from = 0): Promise<Assessment<TicketCheck>> {
  let last: Assessment<TicketCheck> | undefined;
  for (let index = from; index < from + rounds; index++) {
    last = (await harness.judge.assess(
      new TicketCheck(`Ticket ${index}: my order is late.`),
    )) as Assessment<TicketCheck>;
  }
  return last as Assessment<TicketCheck>;
}

const collapses = async () =>
  counted(await collectMetrics(telemetry), 'judgment.signal.collapses', {
    'judgment.connection': 'openai',
    'gen_ai.response.model': sim.model,
  });

beforeAll(async () => {
  telemetry = registerTelemetry();
  db = await SuiteDatabase.create('judgment_signal_collapse_branch_openai');
  sim = await startOpenAiSimulator();
  lockFile = join(mkdtempSync(join(tmpdir(), 'signal-collapse-')), 'judgment.lock.json');
  // Calibrate on the answering model and lock, as `judgment eval --lock` does.
  const calibrating = await app();
  const cases = Array.from({ length: 20 }, (_, index) =>
    LabelledCase.of(
      new TicketCheck(`Calibration ticket ${index}.`),
      index % 2 ? TicketOutcome.Escalate : TicketOutcome.Close,
    ),
  );
  const report = await calibrating.app.get(Calibration).for(TicketCheck).cases(cases).run();
  lockCalibration(CalibrationLock.empty(lockFile), report).write();
});

afterEach(async () => {
  while (harnesses.length) await harnesses.pop()!.close();
  sim.behave('answer');
});

afterAll(async () => {
  await unregisterTelemetry(telemetry);
  await db?.close();
  await sim?.stop();
});

describe('the signal-collapse guard', () => {
  it("stores the calibration run's figures in the lock: 60 answers, few near-certain, their mean entropy", () => {
    const [identity] = CalibrationLock.read(lockFile).entry('ticket-check', 'ticket-decision', '1')!.identities;
    expect(identity.signal).toEqual({
      answers: 60,
      certainShare: expect.any(Number),
      meanEntropy: expect.any(Number),
    });
    expect(identity.signal!.certainShare).toBeLessThan(0.1);
    expect(identity.signal!.meanEntropy).toBeGreaterThan(0.2);
  });

  it('announces a collapse once when the model starts answering everything at about 100 %, and holds it while it lasts', async () => {
    const harness = await app({ lock: lockFile, onDrift: 'warn' });
    const guard = harness.app.get(SignalGuard);
    const log = harness.app.get(CollapseLog);
    const before = await collapses();
    const calm = await assess(harness, 20);
    expect(guard.check(calm)).toBeNull();
    expect(log.collapsed).toHaveLength(0);

    sim.behave('collapsed');
    const collapsed = await assess(harness, 40, 20);
    expect(log.collapsed).toHaveLength(1);
    const [event] = log.collapsed;
    expect(event).toMatchObject({ connection: 'openai', model: sim.model, policy: 'warn', lock: lockFile });
    expect(event.live.certainShare).toBeGreaterThan(event.calibrated.certainShare + 0.25);
    expect(event.live.meanEntropy).toBeLessThan(event.calibrated.meanEntropy / 2);
    expect(event.reason).toContain('were above 0.999');
    expect(guard.check(collapsed)).toMatchObject({ connection: 'openai', model: sim.model, policy: 'warn' });
    expect(harness.captured.line('Signal collapsed.')?.level).toBe('warn');
    expect((await collapses()) - before).toBe(1);

    // Back to an answering model: once the window carries the signal again the collapse ends.
    sim.behave('answer');
    const recovered = await assess(harness, 60, 60);
    expect(guard.check(recovered)).toBeNull();
    expect(harness.captured.line('Signal recovered.')).toBeDefined();
    expect(log.collapsed).toHaveLength(1);
  });

  it("with onDrift 'review', a caller's outcome() awaits Review while the signal is collapsed; the record says why", async () => {
    await db.reset();
    const harness = await app({ lock: lockFile, onDrift: 'review' }, true);
    const calm = await assess(harness, 20);
    expect(Object.values(TicketOutcome)).toContain(await calm.outcome());

    sim.behave('collapsed');
    const collapsed = await assess(harness, 40, 20);
    const decided = await collapsed.outcome();
    expect(decided).toBeInstanceOf(AwaitingReview);
    const awaiting = decided as AwaitingReview<TicketOutcome>;
    expect(awaiting.is('collapse')).toBe(true);
    expect(awaiting.reason.text).toContain('Signal collapse (connection "openai"');
    expect(Object.values(TicketOutcome)).toContain(awaiting.outcome);
    const record = (await harness.records()).find((row) => row.id === awaiting.recordId);
    expect(record).toMatchObject({ reviewCause: 'collapse', outcome: awaiting.outcome });
    expect(record?.reviewReason).toContain('were above 0.999');
  });

  it("with onDrift 'warn' the Outcome acts though the collapse is announced, and 'off' watches nothing", async () => {
    const warning = await app({ lock: lockFile, onDrift: 'warn' });
    sim.behave('collapsed');
    const announced = await assess(warning, 40);
    expect(warning.app.get(CollapseLog).collapsed).toHaveLength(1);
    expect(Object.values(TicketOutcome)).toContain(await announced.outcome());

    const off = await app({ lock: lockFile, onDrift: 'off' });
    const unwatched = await assess(off, 40);
    expect(off.app.get(SignalGuard).check(unwatched)).toBeNull();
    expect(off.app.get(CollapseLog).collapsed).toHaveLength(0);
  });
});
