// Queued assessment on BullMQ (SPEC §2.9): the assess job, the chained decide job, inline mode, nothing lost.
// Real Redis (a unique prefix per test), real PostgreSQL (`judgment_queue`), the Jev simulator over HTTP.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type INestApplicationContext, Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { AssessmentDecided, Judge, Likelihood } from 'nestjs-judgment';
import { fakeJudge, AnswerSource, UnqueueableJudgment } from 'nestjs-judgment/testing';
import {
  API_KEY,
  AssessmentRecord,
  Customer,
  EventLog,
  Moderation,
  type QueueAppSettings,
  RefundCheck,
  decisionFaults,
  finished,
  freshDatabase,
  inspectQueue,
  openDatabase,
  startQueueApp,
  uniquePrefix,
  waitFor,
} from './queue.fixtures';
import { clearPrefix } from '../support/redis';

const DATABASE = 'judgment_queue';
const ASSESS = 'judgment-assess';
const DECIDE = 'judgment-decide';

let sim: JevSimulator;
let simulatorUrl: string;
let db: DataSource;
const opened: { close(): Promise<unknown> }[] = [];
/** The BullMQ prefixes the current test used: their keys are deleted after it. */
const prefixes = new Set<string>();

beforeAll(async () => {
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
  sim = new JevSimulator({ apiKey: API_KEY });
  simulatorUrl = await sim.start();
});

beforeEach(async () => {
  await db.query('TRUNCATE judgment_assessments, queue_customers RESTART IDENTITY');
  sim.clearLog();
  sim.clearFaults();
  sim.setLatency(0);
  decisionFaults.remaining = 0;
  decisionFaults.calls = 0;
});

afterEach(async () => {
  // Apps first (their workers drain), then the inspecting queues, then the test's keys.
  for (const resource of opened.splice(0).reverse()) await resource.close();
  for (const prefix of prefixes) await clearPrefix(prefix);
  prefixes.clear();
});

afterAll(async () => {
  await db?.destroy();
  await sim?.stop();
});

interface Started {
  app: INestApplicationContext;
  judge: Judge;
  events: EventLog;
  assess: Queue;
  decide: Queue;
  prefix: string;
}

/** Starts an app with the queue on (unique prefix unless given) and queues to inspect its jobs. */
async function start(settings: Partial<QueueAppSettings> = {}): Promise<Started> {
  const prefix = settings.prefix ?? uniquePrefix();
  prefixes.add(prefix);
  const app = await startQueueApp({ database: DATABASE, simulatorUrl, prefix, ...settings });
  const assess = inspectQueue(settings.queue?.assessQueue ?? ASSESS, prefix);
  const decide = inspectQueue(settings.queue?.decideQueue ?? DECIDE, prefix);
  opened.push(assess, decide, app);
  return { app, judge: app.get(Judge), events: app.get(EventLog), assess, decide, prefix };
}

async function customer(name = 'Ann'): Promise<Customer> {
  return db.getRepository(Customer).save(Object.assign(new Customer(), { name }));
}

const records = () => db.getRepository(AssessmentRecord).find({ order: { id: 'ASC' } });
const decideIdOf = (assessId: string) => assessId.replace(/^assess-/, 'decide-');

describe('the assess job', () => {
  it('dispatch() resolves to the assess job id; the worker assesses and records the Judgment', async () => {
    const { judge, assess } = await start();
    const subject = await customer();
    const id = await judge.dispatch(new RefundCheck(subject, 'It arrived broken. [[abusive=0.2]]'));

    expect(id).toMatch(/^assess-[0-9a-f-]{36}$/);
    const { job, state } = await finished(assess, id);
    expect(state).toBe('completed');
    expect(job.name).toBe('queue-refund');
    expect(job.opts.attempts).toBe(1);
    const [record] = await records();
    expect(job.returnvalue).toEqual({ kind: 'recorded', record: record.id });
    expect(record).toMatchObject({ judgment: 'queue-refund', subjectType: 'Customer', subjectId: String(subject.id) });
    expect(record.answers).toEqual({ abusive: 0.2 });
  });

  it('the worker assesses through the app Judge (with scripted answers when a test fakes them)', async () => {
    const fake = fakeJudge({ 'queue-refund': { abusive: 0.9 } });
    const { judge, decide } = await start({ overrides: [{ provide: AnswerSource, useValue: fake }] });
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me.'));

    const { state } = await finished(decide, decideIdOf(id));
    expect(state).toBe('completed');
    fake.assertAssessed(RefundCheck);
    expect(sim.requests).toHaveLength(0);
    expect((await records()).map((r) => [r.engine, r.outcome])).toEqual([['fake', 'escalate']]);
  });

  it('an entity held in a property goes by reference and is fetched fresh when the job runs', async () => {
    const { judge, assess } = await start();
    const subject = await customer('Ann');
    await assess.pause();
    const id = await judge.dispatch(new RefundCheck(subject, 'Where is my refund?'));
    const queued = await assess.getJob(id);
    expect(queued!.data.judgment.properties.customer).toEqual({ entity: 'Customer', id: { id: subject.id } });
    expect(queued!.data.judgment.properties.placedAt).toEqual({ value: '2026-01-02T03:04:05.000Z', dates: [[]] });

    await db.getRepository(Customer).update(subject.id, { name: 'Ann Renamed' });
    await assess.resume();
    expect((await finished(assess, id)).state).toBe('completed');
    const [record] = await records();
    expect(record.evidence).toMatchObject({ customer: 'Ann Renamed', placedAt: '2026-01-02T03:04:05.000Z' });
  });

  it('a Subject deleted before the job runs fails it with SubjectNotFound, without retry or AssessmentFailed', async () => {
    const { judge, assess, events } = await start({ queue: { attempts: 3 } });
    const subject = await customer();
    await assess.pause();
    const id = await judge.dispatch(new RefundCheck(subject, 'Refund me.'));
    await db.getRepository(Customer).delete(subject.id);
    await assess.resume();

    const { job, state } = await finished(assess, id);
    expect(state).toBe('failed');
    expect(job.failedReason).toMatch(
      new RegExp(
        `^SubjectNotFound: .*property customer of queue-refund .*Customer \\{"id":${subject.id}\\}.*no longer exists`,
      ),
    );
    expect(job.attemptsMade).toBe(1);
    expect(events.failed).toHaveLength(0);
    expect(await records()).toHaveLength(0);
    expect(sim.requests).toHaveLength(0);
  });

  it('a Judgment that cannot be serialised is refused at dispatch, naming the property', async () => {
    const { judge, assess } = await start();
    const judgment = Object.assign(new Moderation('hello'), { format: (text: string) => text.trim() });

    await expect(judge.dispatch(judgment)).rejects.toThrow(UnqueueableJudgment);
    await expect(judge.dispatch(judgment)).rejects.toThrow(/property format of queue-moderation .* holds a function/);
    expect(await assess.getJobCountByTypes('waiting', 'delayed', 'active', 'completed', 'failed')).toBe(0);
  });

  it('an Unassessed attempt is never decided', async () => {
    const { judge, assess, decide, events } = await start({ options: { throwOnFailure: false } });
    sim.fail({ status: 500 });
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me.'));

    const { job, state } = await finished(assess, id);
    expect(state).toBe('completed');
    const [record] = await records();
    expect(job.returnvalue).toEqual({ kind: 'unassessed', record: record.id });
    expect(record.failureType).toBe('EngineFailed');
    expect(record.outcome).toBeNull();
    expect(await decide.getJob(decideIdOf(id))).toBeUndefined();
    expect(events.failed).toHaveLength(1);
    expect(events.decided).toHaveLength(0);
  });

  it('with throwOnFailure an Engine failure fails the assess job after the attempt was recorded', async () => {
    const { judge, assess, decide, events } = await start();
    sim.fail({ status: 500 });
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me.'));

    const { job, state } = await finished(assess, id);
    expect(state).toBe('failed');
    expect(job.failedReason).toMatch(/500/);
    expect((await records()).map((r) => r.failureType)).toEqual(['EngineFailed']);
    expect(events.failed).toHaveLength(1);
    expect(await decide.getJob(decideIdOf(id))).toBeUndefined();
  });

  it('assess attempts come from the options: a failed attempt is retried with the backoff', async () => {
    const { judge, assess, decide } = await start({ queue: { attempts: 2, backoff: { type: 'fixed', delay: 10 } } });
    sim.fail({ status: 500 });
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me. [[abusive=0.1]]'));

    const { job, state } = await finished(assess, id);
    expect(state).toBe('completed');
    expect(job.attemptsMade).toBe(2);
    expect((await finished(decide, decideIdOf(id))).state).toBe('completed');
    expect((await records()).map((r) => [r.failureType, r.outcome])).toEqual([
      ['EngineFailed', null],
      [null, 'approve'],
    ]);
  });

  it('a Judgment with no default Decision is only assessed', async () => {
    const { judge, assess, decide } = await start();
    const id = await judge.dispatch(new Moderation('Nice post.'));

    const { job, state } = await finished(assess, id);
    expect(state).toBe('completed');
    const [record] = await records();
    expect(job.returnvalue).toEqual({ kind: 'assessed', record: record.id });
    expect(record.outcome).toBeNull();
    expect(await decide.getJob(decideIdOf(id))).toBeUndefined();
  });

  it('without a record (persistence off) the assess job decides inline', async () => {
    const { judge, assess, decide, events } = await start({ options: { persistence: { enabled: false } } });
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me. [[abusive=0.9]]'));

    const { job, state } = await finished(assess, id);
    expect(state).toBe('completed');
    expect(job.returnvalue).toMatchObject({
      kind: 'decided',
      record: null,
      outcome: 'escalate',
      review: null,
    });
    expect(await decide.getJob(decideIdOf(id))).toBeUndefined();
    expect(events.decided.map((e) => [e.outcome, e.record])).toEqual([['escalate', null]]);
    expect(await records()).toHaveLength(0);
  });

  it('a retried assess job resumes from its recorded Assessment: no second Engine round, no second decide job', async () => {
    const { judge, assess, decide, events } = await start();
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me.'));
    await finished(decide, decideIdOf(id));

    await (await assess.getJob(id))!.retry('completed');
    const { job } = await waitFor('the retried job to complete', async () => {
      const again = await finished(assess, id);
      return again.job.attemptsStarted === 2 ? again : undefined;
    });
    expect(job.returnvalue).toEqual({ kind: 'recorded', record: (await records())[0].id });
    expect(sim.requests).toHaveLength(1);
    expect(await records()).toHaveLength(1);
    expect((await decide.getJob(decideIdOf(id)))!.attemptsStarted).toBe(1);
    expect(events.decided).toHaveLength(1);
  });

  it('a job an earlier version checkpointed (`{ record }` in its progress) goes on from that record', async () => {
    const { judge, assess, decide } = await start();
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me.'));
    await finished(decide, decideIdOf(id));
    // As an earlier version left it: the record without the job's id, the record's id in the job's progress.
    const [record] = await records();
    await db.query('UPDATE judgment_assessments SET job_id = NULL');
    await (await assess.getJob(id))!.updateProgress({ record: record.id });

    await (await assess.getJob(id))!.retry('completed');
    const { job } = await waitFor('the retried job to complete', async () => {
      const again = await finished(assess, id);
      return again.job.attemptsStarted === 2 ? again : undefined;
    });
    expect(job.returnvalue).toEqual({ kind: 'recorded', record: record.id });
    expect(sim.requests).toHaveLength(1);
    expect(await records()).toHaveLength(1);
  });
});

describe('dispatch options', () => {
  it('delay and priority become the assess job options: a delayed job waits in the delayed set', async () => {
    const { judge, assess } = await start();
    const id = await judge.dispatch(new Moderation('Later.'), { delay: 60_000, priority: 3 });

    const job = (await assess.getJob(id))!;
    expect(await job.getState()).toBe('delayed');
    expect(job.opts).toMatchObject({ delay: 60_000, priority: 3 });
  });

  it('queue sends the job to another assess queue, run by the workers configured for it', async () => {
    const { judge, assess, prefix } = await start({ queue: { runWorkers: false } });
    const judgment = new RefundCheck(await customer(), 'Refund me. [[abusive=0.1]]');
    const id = await judge.dispatch(judgment, { queue: 'judgment-assess-bulk' });
    expect(await assess.getJob(id)).toBeUndefined();

    const bulk = await start({ prefix, queue: { assessQueue: 'judgment-assess-bulk' } });
    expect((await finished(bulk.assess, id)).state).toBe('completed');
    expect((await finished(bulk.decide, decideIdOf(id))).state).toBe('completed');
    expect((await records()).map((r) => r.outcome)).toEqual(['approve']);
  });
});

describe('the decide job', () => {
  it('decides from the record and never asks the Engine', async () => {
    const { judge, assess, decide, events } = await start();
    await decide.pause();
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me. [[abusive=0.8]]'));
    expect((await finished(assess, id)).state).toBe('completed');
    expect(sim.requests).toHaveLength(1);
    sim.fail({ status: 500 }, 5); // any Engine request from now on would fail

    await decide.resume();
    const { job, state } = await finished(decide, decideIdOf(id));
    expect(state).toBe('completed');
    const [record] = await records();
    expect(job.returnvalue).toMatchObject({ record: record.id, outcome: 'escalate', review: null });
    expect(job.opts).toMatchObject({ attempts: 3, backoff: { type: 'exponential', delay: 1000 } });
    expect(sim.requests).toHaveLength(1);
    expect(sim.pendingFaults).toHaveLength(5);
    expect(record).toMatchObject({ outcome: 'escalate', decision: 'queue-refund-decision' });
    expect(events.decided.map((e) => [e.outcome, e.record?.id])).toEqual([['escalate', record.id]]);
  });

  it('is retried with its backoff while the Decision throws (decideAttempts, default 3)', async () => {
    const { judge, decide } = await start({ queue: { backoff: { type: 'exponential', delay: 10 } } });
    decisionFaults.remaining = 2;
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me. [[abusive=0.1]]'));

    const { job, state } = await finished(decide, decideIdOf(id));
    expect(state).toBe('completed');
    expect(job.attemptsMade).toBe(3);
    expect(decisionFaults.calls).toBe(3);
    expect(sim.requests).toHaveLength(1);
    expect((await records())[0].outcome).toBe('approve');
  });

  it('fails after decideAttempts when the Decision keeps throwing', async () => {
    const { judge, decide } = await start({ queue: { decideAttempts: 2, backoff: { type: 'fixed', delay: 10 } } });
    decisionFaults.remaining = 5;
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me.'));

    const { job, state } = await finished(decide, decideIdOf(id));
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(2);
    expect(job.failedReason).toBe('The refund policy service is briefly unavailable.');
  });

  it('an UnrebuildableAssessment fails it at once, without retry', async () => {
    const { judge, assess, decide, events } = await start({ queue: { backoff: { type: 'fixed', delay: 10 } } });
    await decide.pause();
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me.'));
    await finished(assess, id);
    // A deploy changes the Judgment's Questions between the assess job and its decide job.
    const questions = jest
      .spyOn(RefundCheck.prototype, 'questions')
      .mockReturnValue({ abusive: Likelihood.that('The refund request abuses the policy, worded anew.') });
    try {
      await decide.resume();
      const { job, state } = await finished(decide, decideIdOf(id));
      expect(state).toBe('failed');
      expect(job.attemptsMade).toBe(1);
      expect(job.failedReason).toMatch(
        /^UnrebuildableAssessment: Record #\d+ of queue-refund .*Questions of queue-refund changed/,
      );
    } finally {
      questions.mockRestore();
    }
    expect((await records())[0].outcome).toBeNull();
    expect(events.decided).toHaveLength(0);
  });

  it('a record deleted before the decide job runs fails it at once, naming the record', async () => {
    const { judge, assess, decide, events } = await start({ queue: { backoff: { type: 'fixed', delay: 10 } } });
    await decide.pause();
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me.'));
    await finished(assess, id);
    const [record] = await records();
    await db.getRepository(AssessmentRecord).delete(record.id);
    await decide.resume();

    const { job, state } = await finished(decide, decideIdOf(id));
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toBe(
      `UnrebuildableAssessment: Record #${record.id} of queue-refund no longer exists (pruned or deleted before its ` +
        'Outcome was written).',
    );
    expect(events.decided).toHaveLength(0);
  });
});

/**
 * Holds every decide job in its `decided` listener (the event is awaited inside the job) until `open()`, counting how
 * many run at once.
 */
@Injectable()
class HeldDecisions {
  static running = 0;
  static most = 0;
  private static release: () => void = () => undefined;
  private static gate = Promise.resolve();

  static reset(): void {
    HeldDecisions.running = 0;
    HeldDecisions.most = 0;
    HeldDecisions.gate = new Promise((resolve) => (HeldDecisions.release = resolve));
  }

  static open(): void {
    HeldDecisions.release();
  }

  @OnEvent(AssessmentDecided.NAME)
  async onDecided(): Promise<void> {
    HeldDecisions.running++;
    HeldDecisions.most = Math.max(HeldDecisions.most, HeldDecisions.running);
    await HeldDecisions.gate;
    HeldDecisions.running--;
  }
}

@Module({ providers: [HeldDecisions] })
class HeldDecisionsModule {}

describe('decide concurrency', () => {
  afterEach(() => HeldDecisions.open());

  it.each([
    ['by default a quarter of queue.concurrency', { concurrency: 8 }, 2],
    ['queue.decideConcurrency when given', { concurrency: 8, decideConcurrency: 3 }, 3],
  ])('%s: that many decide jobs run at once, and the others wait their turn', async (_, queue, slots) => {
    HeldDecisions.reset();
    const { judge, decide } = await start({ queue, imports: [HeldDecisionsModule] });
    const subject = await customer();
    for (let n = 0; n < 8; n++) await judge.dispatch(new RefundCheck(subject, `Case ${n}. [[abusive=0.2]]`));

    await waitFor('the decide slots to fill', async () => HeldDecisions.running === slots);
    await waitFor('the other decide jobs to wait', async () => (await decide.getWaitingCount()) === 8 - slots);
    expect(await decide.getActiveCount()).toBe(slots);

    HeldDecisions.open();
    await waitFor('every Judgment to be decided', async () => (await decide.getCompletedCount()) === 8);
    expect(HeldDecisions.most).toBe(slots);
    expect((await records()).map((record) => record.outcome)).toEqual(Array(8).fill('approve'));
  });
});

describe('shutdown', () => {
  it('app.close() lets running jobs finish and chain; after a restart every dispatched Judgment is decided once', async () => {
    // The Engine answers the first batch only after app.close() was called: close() has to wait for it.
    sim.setLatency(1500);
    const settings = { prefix: uniquePrefix(), queue: { concurrency: 4 } };
    const first = await start(settings);
    const subject = await customer();
    for (let n = 0; n < 20; n++) await first.judge.dispatch(new RefundCheck(subject, `Case ${n}.`));
    await waitFor('the first batch to be running', async () => (await first.assess.getActiveCount()) === 4);

    await first.app.close();
    const counts = await first.assess.getJobCounts('active', 'waiting', 'completed', 'failed');
    expect(counts).toMatchObject({ active: 0, completed: 4, failed: 0 });
    expect(counts.waiting).toBeGreaterThan(0);
    expect(await first.decide.getJobCounts('active', 'failed')).toEqual({ active: 0, failed: 0 });

    sim.setLatency(0);
    const second = await start(settings);
    await waitFor('every Judgment to be decided', async () => (await second.decide.getCompletedCount()) === 20, 30_000);
    const rows = await records();
    expect(rows).toHaveLength(20);
    expect(rows.every((r) => r.outcome !== null)).toBe(true);
    expect(sim.requests).toHaveLength(20);
    expect(await second.assess.getFailedCount()).toBe(0);
    expect(await second.decide.getFailedCount()).toBe(0);
  });
});

describe('inline (queue disabled)', () => {
  it('dispatch() runs the same job at once: assessed through the Judge, decided from the record', async () => {
    const { judge, events } = await start({ queue: { enabled: false } });
    const id = await judge.dispatch(new RefundCheck(await customer(), 'Refund me. [[abusive=0.9]]'));

    expect(id).toMatch(/^inline-/);
    expect(sim.requests).toHaveLength(1);
    const [record] = await records();
    expect(record.outcome).toBe('escalate');
    expect(events.decided.map((e) => e.record?.id)).toEqual([record.id]);
  });

  it('refuses what the queue would refuse', async () => {
    const { judge } = await start({ queue: { enabled: false } });
    await expect(judge.dispatch(Object.assign(new Moderation('x'), { at: NaN }))).rejects.toThrow(UnqueueableJudgment);
    expect(sim.requests).toHaveLength(0);
  });

  it('loads no BullMQ code, so an app without bullmq installed works', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', './scripts/register.js', 'test/queue/without-bullmq.fixture.ts'],
      { cwd: `${__dirname}/../..` },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(result.id).toMatch(/^inline-/);
    expect(['flagged', 'fine']).toContain(result.outcome);
    expect(result.loaded).toEqual([]);
  });
});
