// Dispatch under the fake with the queue on: the real BullMQ jobs (real Redis), whose worker uses the app's Judge.
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { AssessmentDecided } from 'nestjs-judgment';
import { FakeJudge } from 'nestjs-judgment/testing';
import { Priority, type Started, TicketTriage, closeApps, rows, start, triage } from './support';

let app: Started | undefined;
afterEach(async () => {
  for (const name of ['judgment-assess', 'judgment-decide']) {
    await app?.app.get<Queue>(getQueueToken(name)).obliterate({ force: true });
  }
  await closeApps();
});

/** Resolves once the app announced a decision (the decide job ran). */
function decided(started: Started): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (started.log.of(AssessmentDecided).length > 0 ? resolve() : setTimeout(check, 20));
    check();
  });
}

it('a queued dispatch pushes the real job: its worker assesses through the fake, and the record is decided', async () => {
  app = await start('testing', { queue: { enabled: true } }, { 'ticket-triage': { urgent: 0.9 } });
  const fake = app.app.get(FakeJudge);
  const id = await app.judge.dispatch(await triage(app, 'Checkout is broken.'));
  expect(id).toMatch(/^assess-/);
  fake.assertDispatched(TicketTriage, (j) => j.ticket.body === 'Checkout is broken.');

  await decided(app);
  fake.assertAssessed(TicketTriage, (j) => j.ticket.body === 'Checkout is broken.');
  expect(await rows(app)).toEqual([
    expect.objectContaining({ engine: 'fake', model: 'fake', decision: 'Prioritise', outcome: '1' }),
  ]);
  await fake.assertAwaitingReview(TicketTriage, (_j, outcome) => outcome === Priority.Urgent);
});
