// AssessmentRecords (SPEC §2.6; reference §4.2, §8.3, §8.4): Replay, deciding through a record, queries, retention.
import {
  AssessmentDecided,
  AssessmentRecord,
  EngineFailed,
  InvalidRecordQuery,
  Judgment,
  ReviewRequested,
  UnrebuildableAssessment,
} from 'nestjs-judgment';
import { UnscriptedQuestion } from 'nestjs-judgment/testing';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  Customer,
  FreeText,
  RefundAbuse,
  RefundOutcome,
  type ReviewApp,
  StrictRefundDecision,
  TicketTriage,
  assessRefund,
  prepareDatabase,
  startApp,
  startSimulator,
} from './review.fixtures';

const DATABASE = 'judgment_review_records';
const DAY_MS = 86_400_000;
let simulator: JevSimulator;
let url: string;
let context: ReviewApp;

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  ({ simulator, url } = await startSimulator());
  context = await startApp(DATABASE, url, { options: { persistence: { retentionDays: 30 } } });
});

afterAll(async () => {
  await context?.app.close();
  await simulator?.stop();
});

/** Records a failed attempt of RefundAbuse for the customer (the simulator answers 500 once). */
async function failedAttempt(customer: Customer): Promise<AssessmentRecord> {
  simulator.fail({ status: 500 });
  await expect(context.judge.assess(new RefundAbuse(customer))).rejects.toThrow(EngineFailed);
  return (await context.records.latest(customer, RefundAbuse))!;
}

function update(id: number, columns: QueryDeepPartialEntity<AssessmentRecord>) {
  return context.dataSource.getRepository(AssessmentRecord).update({ id }, columns);
}

describe('Replay: rebuild(record)', () => {
  it('restores the answers and the Provenance (engine, model, request id, details)', async () => {
    const { assessment, record } = await assessRefund(context, 'Refund me. [[abusive=0.42]]');
    const rebuilt = await context.records.rebuild(record);
    expect(rebuilt.likelihood('abusive').probability).toBe(0.42);
    expect(rebuilt.encodedAnswers()).toEqual(assessment.encodedAnswers());
    expect(rebuilt.provenance).toMatchObject({ engine: 'jev', model: 'jev-1.13.0', requestId: record.requestId });
    expect(rebuilt.provenance.details).toEqual(record.provenanceDetails);
    expect(rebuilt.provenance.details).toHaveProperty('usage');
  });

  it('constructs the registered Judgment class from the Subject loaded by subject_type and subject_id', async () => {
    const { customer, record } = await assessRefund(context, 'Refund me. [[abusive=0.1]]');
    expect(record).toMatchObject({ subjectType: 'Customer', subjectId: String(customer.id) });
    const rebuilt = await context.records.rebuild<RefundAbuse>(record);
    expect(rebuilt.judgment).toBeInstanceOf(RefundAbuse);
    expect(rebuilt.judgment.customer).toBeInstanceOf(Customer);
    expect(rebuilt.judgment.customer).toEqual(customer);
  });

  it('deciding a Replay records, logs and fires nothing and never starts Review', async () => {
    const { record } = await assessRefund(context, 'Refund me. [[abusive=0.5]]');
    const logged = context.logs.lines.length;
    const fired = context.events.events.length;
    const replay = await context.records.rebuild(record);
    await expect(replay.outcome()).resolves.toMatchObject({
      outcome: RefundOutcome.Escalate,
      reason: { cause: 'band' },
    });
    await expect(replay.decide(new StrictRefundDecision())).resolves.toBe(RefundOutcome.Reject);
    expect(await context.row(record.id)).toMatchObject({ decision: null, outcome: null, reviewRequestedAt: null });
    expect(context.logs.lines).toHaveLength(logged);
    expect(context.events.events).toHaveLength(fired);
  });

  it('refuses an Unassessed attempt (UnrebuildableAssessment naming the record)', async () => {
    const attempt = await failedAttempt(await context.customer('Refund me.'));
    expect(attempt.isUnassessed()).toBe(true);
    await expect(context.records.rebuild(attempt)).rejects.toThrow(UnrebuildableAssessment);
    await expect(context.records.rebuild(attempt)).rejects.toThrow(
      new RegExp(`Record #${attempt.id} of refund-abuse .*Unassessed attempt \\(EngineFailed\\)`),
    );
  });

  it('refuses another Judgment: the exact registered class, a subclass fails too', async () => {
    const { customer, record } = await assessRefund(context, 'Refund me. [[abusive=0.1]]');
    class SubclassedRefundAbuse extends RefundAbuse {}
    @Judgment({ name: 'refund-abuse' })
    class SameNameRefundAbuse extends RefundAbuse {}
    for (const judgment of [
      new FreeText('Refund me.'),
      new SubclassedRefundAbuse(customer),
      new SameNameRefundAbuse(customer),
    ]) {
      await expect(context.records.rebuild(record, judgment as never)).rejects.toThrow(
        new RegExp(`Record #${record.id} of refund-abuse cannot be rebuilt: it was made by refund-abuse`),
      );
    }
    await expect(context.records.rebuild(record, new RefundAbuse(customer))).resolves.toBeDefined();
  });

  it('refuses when the Questions changed since (their fingerprints differ)', async () => {
    const { customer, record } = await assessRefund(context, 'Refund me. [[abusive=0.1]]');
    const reworded = new RefundAbuse(customer, 'Is this customer gaming our refund policy?');
    await expect(context.records.rebuild(record, reworded)).rejects.toThrow(UnrebuildableAssessment);
    await expect(context.records.rebuild(record, reworded)).rejects.toThrow(/Questions of refund-abuse changed/);
  });

  it('refuses a record with no Subject to construct the Judgment with', async () => {
    await context.judge.assess(new FreeText('Refund me. [[abusive=0.1]]'));
    const [withoutSubject] = (await context.records.answered({ judgment: 'free-text' })).slice(-1);
    expect(withoutSubject.subjectType).toBeNull();
    await expect(context.records.rebuild(withoutSubject)).rejects.toThrow(
      new RegExp(`Record #${withoutSubject.id} of free-text cannot be rebuilt: it has no Subject`),
    );
    await expect(
      context.records.rebuild(withoutSubject, new FreeText('Refund me. [[abusive=0.1]]')),
    ).resolves.toBeDefined();

    const { customer, record } = await assessRefund(context, 'Refund me. [[abusive=0.1]]');
    await context.dataSource.getRepository(Customer).delete({ id: customer.id });
    await expect(context.records.rebuild(record)).rejects.toThrow(
      new RegExp(
        `Record #${record.id} of refund-abuse cannot be rebuilt: its Subject Customer #${customer.id} no longer exists`,
      ),
    );
  });

  it('a record whose round left a Question unanswered rebuilds with it unanswered; a record without answers does not', async () => {
    const { record } = await assessRefund(context, 'Refund me. [[abusive=0.1]]');
    const { abusive: _dropped, ...partial } = record.answers as Record<string, unknown>;
    await update(record.id, { answers: partial as never });
    const rebuilt = await context.records.rebuild(await context.row(record.id));
    expect(rebuilt.isAnswered('abusive')).toBe(false);
    expect(() => rebuilt.likelihood('abusive')).toThrow(UnscriptedQuestion);
    await update(record.id, { answers: null });
    await expect(context.records.rebuild(await context.row(record.id))).rejects.toThrow(/holds no answers/);
  });
});

describe('Deciding through a record', () => {
  it('outcome(record) records the Outcome on this record, logs it, fires events and may start Review', async () => {
    const { record } = await assessRefund(context, 'Refund me. [[abusive=0.5]]');
    const logged = context.logs.decided().length;
    await expect(context.records.outcome(record)).resolves.toMatchObject({
      outcome: RefundOutcome.Escalate,
      reason: { cause: 'band' },
    });
    const row = await context.row(record.id);
    expect(row).toMatchObject({ decision: 'refund-decision', outcome: 'escalate' });
    expect(row.isAwaitingReview()).toBe(true);
    expect(record.isAwaitingReview()).toBe(true); // the given instance is refreshed
    expect(context.logs.decided()).toHaveLength(logged + 1);
    expect(context.events.of(ReviewRequested, record.id)).toHaveLength(1);
    expect(context.events.of<AssessmentDecided>(AssessmentDecided, record.id)[0].record).toBe(record);
  });

  it('decide(record, decision) applies the given Decision to this record', async () => {
    const { record } = await assessRefund(context, 'Refund me. [[abusive=0.25]]');
    await expect(context.records.decide(record, new StrictRefundDecision())).resolves.toBe(RefundOutcome.Reject);
    expect(await context.row(record.id)).toMatchObject({ decision: 'strict-refund', outcome: 'reject' });
    expect(context.events.of<AssessmentDecided>(AssessmentDecided, record.id).map((e) => e.outcome)).toEqual([
      RefundOutcome.Reject,
    ]);
  });
});

describe('Queries', () => {
  it('awaitingReview() lists the records in Review that are not resolved', async () => {
    const customer = await context.customer('Refund me. [[abusive=0.5]]');
    const waiting = await context.judge.assess(new RefundAbuse(customer));
    await waiting.outcome();
    const resolved = await context.judge.assess(new RefundAbuse(customer));
    await resolved.outcome();
    const rows = await context.records.forSubject(customer);
    await update(rows[1].id, { resolution: 'approve', resolverType: 'staff', resolverId: '1', resolvedAt: new Date() });
    await context.judge
      .assess(new RefundAbuse(await context.customer('Refund me. [[abusive=0.1]]')))
      .then((a) => a.outcome());
    expect((await context.records.awaitingReview({ subject: customer })).map((r) => r.id)).toEqual([rows[0].id]);
    const all = await context.records.awaitingReview();
    expect(all.every((r) => r.isAwaitingReview())).toBe(true);
    expect(all.map((r) => r.id)).toContain(rows[0].id);
  });

  it('a subject filter that is not an entity the DataSource knows is refused with InvalidRecordQuery', async () => {
    const query = context.records.awaitingReview({ subject: { id: 1 } as unknown as Customer });
    await expect(query).rejects.toThrow(InvalidRecordQuery);
    await expect(query).rejects.toThrow('The subject filter must be an instance of a TypeORM entity');
  });

  it('answered() and unassessed() split answered records from failed attempts', async () => {
    const customer = await context.customer('Refund me. [[abusive=0.1]]');
    await context.judge.assess(new RefundAbuse(customer));
    const failed = await failedAttempt(customer);
    const answered = await context.records.answered({ subject: customer });
    const unassessed = await context.records.unassessed({ subject: customer });
    expect(answered).toHaveLength(1);
    expect(answered[0].isUnassessed()).toBe(false);
    expect(unassessed.map((r) => r.id)).toEqual([failed.id]);
  });

  it("forSubject() lists a Subject's records oldest first, filtered by Judgment (class or name), limit and offset", async () => {
    const customer = await context.customer('Ticket and refund. [[p=0.1]]');
    await context.judge.assess(new RefundAbuse(customer));
    await context.judge.assess(new TicketTriage(customer));
    await context.judge.assess(new RefundAbuse(customer));
    const all = await context.records.forSubject(customer);
    expect(all.map((r) => r.judgment)).toEqual(['refund-abuse', 'ticket-triage', 'refund-abuse']);
    expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort((a, b) => a - b));
    expect(await context.records.forSubject(customer, { judgment: RefundAbuse })).toEqual([all[0], all[2]]);
    expect(await context.records.forSubject(customer, { judgment: 'ticket-triage' })).toEqual([all[1]]);
    expect(await context.records.forSubject(customer, { limit: 1, offset: 1 })).toEqual([all[1]]);
    const other = await context.customer('Someone else.');
    expect(await context.records.forSubject(other)).toEqual([]);
  });

  it('latest() is the highest id of that Subject and Judgment, may be an Unassessed attempt, and null when none', async () => {
    const customer = await context.customer('Refund me. [[abusive=0.1]]');
    expect(await context.records.latest(customer, RefundAbuse)).toBeNull();
    await context.judge.assess(new RefundAbuse(customer));
    await context.judge.assess(new TicketTriage(customer));
    const failed = await failedAttempt(customer);
    const latest = await context.records.latest(customer, RefundAbuse);
    expect(latest?.id).toBe(failed.id);
    expect(latest?.isUnassessed()).toBe(true);
    expect((await context.records.latest(customer, 'ticket-triage'))?.judgment).toBe('ticket-triage');
  });

  it('find(id) returns the record, or null', async () => {
    const { record } = await assessRefund(context, 'Refund me.');
    expect((await context.records.find(record.id))?.id).toBe(record.id);
    expect(await context.records.find(2_000_000_000)).toBeNull();
  });
});

describe('Retention: prune()', () => {
  it('deletes records older than retentionDays (31 days old goes with 30, 29 days stays)', async () => {
    await context.dataSource.getRepository(AssessmentRecord).clear(); // only this test's records count
    const old = await assessRefund(context, 'Old refund.');
    const recent = await assessRefund(context, 'Recent refund.');
    await update(old.record.id, { createdAt: new Date(Date.now() - 31 * DAY_MS) });
    await update(recent.record.id, { createdAt: new Date(Date.now() - 29 * DAY_MS) });
    // N-of-M votes on each (as resolve() writes them), cast when the records were.
    const vote =
      'INSERT INTO judgment_review_votes (record_id, judgment, reviewer_type, reviewer_id, outcome, created_at)';
    await context.dataSource.query(`${vote} VALUES ($1, 'refund-abuse', 'staff', 'ann', 'approve', $2)`, [
      old.record.id,
      new Date(Date.now() - 31 * DAY_MS),
    ]);
    await context.dataSource.query(`${vote} VALUES ($1, 'refund-abuse', 'staff', 'ann', 'approve', $2)`, [
      recent.record.id,
      new Date(Date.now() - 29 * DAY_MS),
    ]);
    await expect(context.records.prune()).resolves.toBe(1);
    expect(await context.records.find(old.record.id)).toBeNull();
    expect(await context.records.find(recent.record.id)).not.toBeNull();
    // The votes go with their records.
    const votes: { record_id: number }[] = await context.dataSource.query(
      'SELECT record_id FROM judgment_review_votes WHERE record_id IN ($1, $2)',
      [old.record.id, recent.record.id],
    );
    expect(votes.map((row) => row.record_id)).toEqual([recent.record.id]);
  });

  it('keeps every record when retentionDays is null', async () => {
    const keepAll = await startApp(DATABASE, url, {
      options: { persistence: { retentionDays: null } },
      logs: context.logs,
    });
    try {
      const { record } = await assessRefund(keepAll, 'Ancient refund.');
      await update(record.id, { createdAt: new Date(Date.now() - 3650 * DAY_MS) });
      await expect(keepAll.records.prune()).resolves.toBe(0);
      expect(await keepAll.records.find(record.id)).not.toBeNull();
    } finally {
      await keepAll.app.close();
    }
  });
});
