// The fake Judge against a real database (SQLite in memory): what it records, decides and asserts from records.
import {
  type Assessment,
  AssessmentCompleted,
  AssessmentDecided,
  AssessmentFailed,
  AssessmentNotRecorded,
  AssessmentRecords,
  EngineRateLimited,
  ReviewRequested,
  Unassessed,
} from 'nestjs-judgment';
import { FakeJudge, fakeJudge } from 'nestjs-judgment/testing';
import { IDENTITY, PROVENANCE, Priority, TicketTriage, closeApps, rows, start, triage, without } from './support';

afterEach(closeApps);

it("the fake's row equals the Judge's for the same answers, except engine, model, request_id and provenance_details", async () => {
  const real = await start('real');
  const answered = await real.judge.assess(await triage(real));
  const [realRow] = await rows(real);

  const testing = await start('testing', {}, { 'ticket-triage': answered.encodedAnswers() });
  await testing.judge.assess(await triage(testing));
  const [fakeRow] = await rows(testing);

  expect(realRow).toMatchObject({ engine: 'mock', model: 'mock-1.0.0', subjectType: 'TicketRow', language: 'en' });
  expect(fakeRow).toMatchObject({ engine: 'fake', model: 'fake', requestId: null, provenanceDetails: {} });
  expect(without(fakeRow, [...IDENTITY, ...PROVENANCE])).toEqual(without(realRow, [...IDENTITY, ...PROVENANCE]));
});

it('questions the script leaves out are recorded without an answer', async () => {
  const testing = await start('testing', {}, { 'ticket-triage': { urgent: 0.9 } });
  await testing.judge.assess(await triage(testing));
  expect((await rows(testing))[0].answers).toEqual({ urgent: 0.9 });
});

it('a scripted failure is recorded as an Unassessed attempt: failure type and message, no answers, no provenance', async () => {
  const testing = await start(
    'testing',
    { throwOnFailure: false },
    {
      'ticket-triage': () => {
        throw new EngineRateLimited('Too many requests; retry in 30 s.');
      },
    },
  );
  const result = (await testing.judge.assess(await triage(testing))) as unknown as Unassessed;
  const [row] = await rows(testing);
  expect(result).toBeInstanceOf(Unassessed);
  expect(result.record).toMatchObject({ id: row.id });
  expect(row).toMatchObject({
    failureType: 'EngineRateLimited',
    failureMessage: 'Too many requests; retry in 30 s.',
    answers: null,
    engine: null,
    model: null,
    requestId: null,
    provenanceDetails: null,
  });
  expect(testing.log.of(AssessmentFailed)).toEqual([
    expect.objectContaining({ record: expect.objectContaining({ id: row.id }) }),
  ]);
});

it('deciding records the Outcome, logs `Judgment decided.`, enters Review once and fires the events with the record', async () => {
  const testing = await start('testing', {}, { 'ticket-triage': { urgent: 0.9 } });
  const assessment = await testing.judge.assess(await triage(testing));
  expect(await assessment.outcome()).toMatchObject({ outcome: Priority.Urgent, reason: { cause: 'band' } });
  expect(await assessment.outcome()).toMatchObject({ outcome: Priority.Urgent, reason: { cause: 'band' } });
  const [row] = await rows(testing);
  expect(row).toMatchObject({ decision: 'Prioritise', decisionVersion: '3', outcome: '1' });
  expect(row.isAwaitingReview()).toBe(true);
  expect(testing.logger.messages.filter((m) => m.startsWith('Judgment'))).toEqual([
    'Judgment assessed.',
    'Judgment decided.',
    'Judgment decided.',
  ]);
  expect(testing.log.names()).toEqual([
    'AssessmentCompleted',
    'ReviewRequested',
    'AssessmentDecided',
    'AssessmentDecided',
  ]);
  for (const event of [
    ...testing.log.of(AssessmentCompleted),
    ...testing.log.of(ReviewRequested),
    ...testing.log.of(AssessmentDecided),
  ]) {
    expect(event.record?.id).toBe(row.id);
  }
});

it('assertAwaitingReview reads the record afresh: its Outcome is typed, and a resolved record no longer awaits Review', async () => {
  const testing = await start('testing', {}, { 'ticket-triage': { urgent: 0.9 } });
  const fake = testing.app.get(FakeJudge);
  await (await testing.judge.assess(await triage(testing))).outcome();
  await fake.assertAwaitingReview(TicketTriage, (_judgment, outcome) => outcome === Priority.Urgent);
  await testing.db.query("UPDATE judgment_assessments SET resolution = '0', resolved_at = CURRENT_TIMESTAMP");
  await expect(fake.assertAwaitingReview(TicketTriage)).rejects.toThrow(
    'Expected TicketTriage ("ticket-triage") to await Review, but it did not: 1',
  );
});

it('required recording that fails throws AssessmentNotRecorded carrying the Assessment, and announces nothing', async () => {
  const testing = await start('testing', {}, { 'ticket-triage': { urgent: 0.9 } });
  const judgment = await triage(testing);
  await testing.db.query('DROP TABLE judgment_assessments');
  const error = await testing.judge.assess(judgment).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AssessmentNotRecorded);
  expect(((error as AssessmentNotRecorded).assessment as Assessment).encodedAnswers()).toEqual({ urgent: 0.9 });
  expect(testing.log.events).toEqual([]);
});

it('best-effort recording that fails returns the Assessment and announces it with a null record', async () => {
  const testing = await start('testing', { persistence: { required: false } }, { 'ticket-triage': { urgent: 0.9 } });
  const judgment = await triage(testing);
  await testing.db.query('DROP TABLE judgment_assessments');
  const assessment = await testing.judge.assess(judgment);
  expect(assessment.likelihood('urgent').probability).toBe(0.9);
  expect(testing.log.of(AssessmentCompleted)).toEqual([expect.objectContaining({ assessment, record: null })]);
  expect(testing.logger.messages).toContain('Judgment not recorded.');
});

it('with persistence off the fake records nothing', async () => {
  const testing = await start('testing', { persistence: { enabled: false } }, { 'ticket-triage': { urgent: 0.9 } });
  await (await testing.judge.assess(await triage(testing))).outcome();
  expect(await rows(testing)).toEqual([]);
  await testing.app.get(FakeJudge).assertAwaitingReview(TicketTriage, (_j, outcome) => outcome === Priority.Urgent);
});

it('dispatch() under the fake records the Assessment and decides it from its record', async () => {
  const testing = await start('testing', {}, { 'ticket-triage': { urgent: 0.9 } });
  const fake = testing.app.get(FakeJudge);
  const judgment = await triage(testing, 'Payments fail for everyone.');
  await testing.judge.dispatch(judgment);
  fake.assertDispatched(TicketTriage, (j) => j.ticket.body === 'Payments fail for everyone.');
  const [row] = await rows(testing);
  expect(row).toMatchObject({ engine: 'fake', decision: 'Prioritise', outcome: '1' });
  await fake.assertAwaitingReview(TicketTriage, (_j, outcome) => outcome === Priority.Urgent);
});

it('overrideProvider(AnswerSource).useValue(fakeJudge()) records through the real module', async () => {
  const fake = fakeJudge({ 'ticket-triage': { urgent: 0.2 } });
  const overridden = await start(fake);
  await (await overridden.judge.assess(await triage(overridden))).outcome();
  expect(await rows(overridden)).toEqual([
    expect.objectContaining({ engine: 'fake', model: 'fake', answers: { urgent: 0.2 }, outcome: '0' }),
  ]);
  fake.assertAssessed(TicketTriage);
});

it('overrideProvider(AnswerSource): a case resolved through AssessmentRecords no longer awaits Review (ReviewResolved)', async () => {
  class AnyStaff {
    canResolve(): boolean {
      return true;
    }
  }
  const fake = fakeJudge({ 'ticket-triage': { urgent: 0.9 } });
  const overridden = await start(fake, { resolutionPolicy: AnyStaff });
  await (await overridden.judge.assess(await triage(overridden))).outcome();
  await fake.assertAwaitingReview(TicketTriage, (_judgment, outcome) => outcome === Priority.Urgent);
  const [row] = await rows(overridden);
  await overridden.app.get(AssessmentRecords).resolve(row, Priority.Normal, { type: 'staff', id: 1 });
  await expect(fake.assertAwaitingReview(TicketTriage)).rejects.toThrow(
    'Expected TicketTriage ("ticket-triage") to await Review, but it did not: 1',
  );
});
