// Deciding (SPEC §2.4, §2.7, §3 rule 6; reference §8): recorded Outcomes, Review entry, log and event order.
import { AssessmentDecided, AssessmentNotRecorded, type Assessment, ReviewRequested } from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import { InvalidDecision } from 'nestjs-judgment/testing';
import {
  FreeText,
  RefundDecision,
  RefundOutcome,
  type ReviewApp,
  StrictRefundDecision,
  assessRefund,
  prepareDatabase,
  startApp,
  startSimulator,
} from './review.fixtures';

const DATABASE = 'judgment_review_deciding';
let simulator: JevSimulator;
let url: string;
let context: ReviewApp;

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  ({ simulator, url } = await startSimulator());
  context = await startApp(DATABASE, url);
});

afterAll(async () => {
  await context?.app.close();
  await simulator?.stop();
});

afterEach(() => {
  context.events.explode = null;
});

describe('Deciding a recorded Assessment', () => {
  it("records the Decision's registered name, its version, the outcome type and the Outcome", async () => {
    const { assessment, record } = await assessRefund(context, 'I want my money back. [[abusive=0.9]]');
    await expect(assessment.outcome()).resolves.toBe(RefundOutcome.Reject);
    const row = await context.row(record.id);
    expect(row).toMatchObject({
      decision: 'refund-decision',
      decisionVersion: '2',
      outcomeType: 'RefundOutcome',
      outcome: 'reject',
      reviewRequestedAt: null,
    });
  });

  it("an Outcome in the Decision's review list puts the record in Review", async () => {
    const { assessment, record } = await assessRefund(context, 'Refund me, the box was empty. [[abusive=0.5]]');
    await expect(assessment.outcome()).resolves.toMatchObject({
      outcome: RefundOutcome.Escalate,
      reason: { cause: 'band' },
    });
    const row = await context.row(record.id);
    expect(row.outcome).toBe('escalate');
    expect(row.reviewRequestedAt).toBeInstanceOf(Date);
    expect(row.isAwaitingReview()).toBe(true);
  });

  it('before Review every decision overwrites the previous one (last wins)', async () => {
    const { assessment, record } = await assessRefund(context, 'Second refund this month. [[abusive=0.25]]');
    await expect(assessment.outcome()).resolves.toBe(RefundOutcome.Approve);
    await expect(assessment.decide(new StrictRefundDecision())).resolves.toBe(RefundOutcome.Reject);
    expect(await context.row(record.id)).toMatchObject({
      decision: 'strict-refund',
      decisionVersion: null,
      outcome: 'reject',
      reviewRequestedAt: null,
    });
  });

  it('once in Review, later decisions never overwrite the Outcome that sent it there', async () => {
    const { assessment, record } = await assessRefund(context, 'Where is my refund? [[abusive=0.5]]');
    await assessment.outcome();
    const inReview = await context.row(record.id);
    // The case awaits Review with the reason that sent it there, whatever a later Decision gives.
    await expect(assessment.decide(new StrictRefundDecision())).resolves.toMatchObject({
      outcome: RefundOutcome.Reject,
      reason: { cause: 'band' },
    });
    await expect(context.records.decide(inReview, new StrictRefundDecision())).resolves.toMatchObject({
      outcome: RefundOutcome.Reject,
      reason: { cause: 'band' },
    });
    const row = await context.row(record.id);
    expect(row).toMatchObject({ decision: 'refund-decision', decisionVersion: '2', outcome: 'escalate' });
    expect(row.reviewRequestedAt).toEqual(inReview.reviewRequestedAt);
  });

  it('AssessmentDecided fires for every recorded decision, re-decisions in Review included, with the new Outcome', async () => {
    const { assessment, record } = await assessRefund(context, 'Refund, please. [[abusive=0.5]]');
    await assessment.outcome();
    await assessment.decide(new StrictRefundDecision());
    const decided = context.events.of<AssessmentDecided>(AssessmentDecided, record.id);
    expect(decided.map((event) => event.outcome)).toEqual([RefundOutcome.Escalate, RefundOutcome.Reject]);
    expect(decided[1].decision).toBeInstanceOf(StrictRefundDecision);
    expect(decided[1].assessment).toBe(assessment);
    expect(decided[1].record?.outcome).toBe('escalate');
    expect(decided[1].record?.isAwaitingReview()).toBe(true);
  });

  it('ReviewRequested fires once per record', async () => {
    const { assessment, record } = await assessRefund(context, 'I was charged twice. [[abusive=0.5]]');
    await assessment.outcome();
    await assessment.outcome();
    await context.records.outcome(await context.row(record.id));
    await context.records.outcome(record); // a stale copy that does not know it is in Review
    const requested = context.events.of<ReviewRequested>(ReviewRequested, record.id);
    expect(requested).toHaveLength(1);
    expect(requested[0].outcome).toBe(RefundOutcome.Escalate);
    expect(requested[0].requestedAt).toEqual((await context.row(record.id)).reviewRequestedAt);
    expect(context.events.of(AssessmentDecided, record.id)).toHaveLength(4);
  });

  it('without a record, ReviewRequested fires once per in-memory Assessment', async () => {
    const unrecorded = await startApp(DATABASE, url, {
      options: { persistence: { enabled: false } },
      logs: context.logs,
    });
    try {
      const first = await unrecorded.judge.assess(new FreeText('You people are the worst. [[abusive=0.9]]'));
      const second = await unrecorded.judge.assess(new FreeText('You people are the worst. [[abusive=0.9]]'));
      await Promise.all([first.outcome(), first.outcome(), first.outcome()]); // concurrent: still announced once
      await first.outcome();
      await second.outcome();
      const requested = unrecorded.events.of<ReviewRequested>(ReviewRequested);
      expect(requested.map((event) => event.assessment)).toEqual([first, second]);
      expect(requested.every((event) => event.record === null && event.requestedAt instanceof Date)).toBe(true);
      expect(unrecorded.events.of(AssessmentDecided)).toHaveLength(5);
    } finally {
      await unrecorded.app.close();
    }
  });

  it('logs "Judgment decided." with its context before any listener runs', async () => {
    const { assessment, record } = await assessRefund(context, 'Refund now. [[abusive=0.9]]');
    const timelineStart = context.logs.timeline.length;
    await assessment.outcome();
    expect(context.logs.decided('refund-abuse').at(-1)).toEqual({
      message: 'Judgment decided.',
      judgment: 'refund-abuse',
      engine: 'jev',
      model: 'jev-1.13.0',
      request_id: record.requestId,
      decision: 'refund-decision',
      outcome: 'reject',
    });
    expect(record.requestId).toMatch(/^req_/);
    expect(context.logs.timeline.slice(timelineStart)).toEqual([
      'log Judgment decided.',
      `event ${AssessmentDecided.NAME}`,
    ]);
  });

  it('a throwing listener surfaces to the caller after the row and the log line were written', async () => {
    const { assessment, record } = await assessRefund(context, 'Refund it all. [[abusive=0.1]]');
    const logged = context.logs.decided().length;
    context.events.explode = new Error('listener failed');
    await expect(assessment.outcome()).rejects.toThrow('listener failed');
    expect((await context.row(record.id)).outcome).toBe('approve');
    expect(context.logs.decided()).toHaveLength(logged + 1);
  });

  it('an Assessment that could not be recorded cannot be decided (AssessmentNotRecorded)', async () => {
    // A language the database refuses (a check the package cannot know of): the row is refused after the answer.
    const constraint =
      "ALTER TABLE judgment_assessments ADD CONSTRAINT refuse_zz CHECK (language IS DISTINCT FROM 'zz')";
    await context.dataSource.query(constraint);
    const failure = await context.judge
      .assess(new FreeText('Hello. [[abusive=0.9]]', 'zz'))
      .then(
        () => null,
        (error: unknown) => error,
      )
      .finally(() => context.dataSource.query('ALTER TABLE judgment_assessments DROP CONSTRAINT refuse_zz'));
    expect(failure).toBeInstanceOf(AssessmentNotRecorded);
    const refused = (failure as AssessmentNotRecorded).assessment as Assessment<FreeText>;
    const logged = context.logs.decided().length;
    const fired = context.events.events.length;
    await expect(refused.outcome()).rejects.toThrow(AssessmentNotRecorded);
    expect(context.logs.decided()).toHaveLength(logged);
    expect(context.events.events).toHaveLength(fired);
  });

  it('a Decision of another Judgment is refused with InvalidDecision and nothing is recorded', async () => {
    const assessment = await context.judge.assess(new FreeText('Give me a refund. [[abusive=0.9]]'));
    const [record] = (await context.records.answered({ judgment: FreeText })).slice(-1);
    const fired = context.events.events.length;
    await expect(assessment.decide(new RefundDecision() as never)).rejects.toThrow(InvalidDecision);
    await expect(assessment.decide(new RefundDecision() as never)).rejects.toThrow(
      /refund-decision is the Decision of refund-abuse; it cannot decide an Assessment of free-text/,
    );
    expect((await context.row(record.id)).decision).toBeNull();
    expect(context.events.events).toHaveLength(fired);
  });
});
