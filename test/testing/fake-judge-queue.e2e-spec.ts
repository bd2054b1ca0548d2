// Dispatch under the fake with the queue on: the real BullMQ jobs (real Redis), whose worker uses the app's Judge.
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { FakeJudge } from 'nestjs-judgment/testing';
import { Priority, type Started, TicketTriage, closeApps, rows, start, triage } from './support';

// The app first (its workers drain), then its queues' Redis keys.
afterEach(() => closeApps());

/** Resolves once the decide job chained to the assess job `assessId` is completed; fails after `timeoutMs`. */
async function decideCompleted(started: Started, assessId: string, timeoutMs = 15_000): Promise<void> {
  const decide = started.app.get<Queue>(getQueueToken('judgment-decide'));
  const id = assessId.replace(/^assess-/, 'decide-');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = (await (await decide.getJob(id))?.getState()) ?? 'missing';
    if (state === 'completed') return;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for job ${id} to complete (it is ${state}).`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('a queued dispatch pushes the real job: its worker assesses through the fake, and the record is decided', async () => {
  const app = await start('testing', { queue: { enabled: true } }, { 'ticket-triage': { urgent: 0.9 } });
  const fake = app.app.get(FakeJudge);
  const id = await app.judge.dispatch(await triage(app, 'Checkout is broken.'));
  expect(id).toMatch(/^assess-/);
  fake.assertDispatched(TicketTriage, (j) => j.ticket.body === 'Checkout is broken.');

  await decideCompleted(app, id);
  fake.assertAssessed(TicketTriage, (j) => j.ticket.body === 'Checkout is broken.');
  expect(await rows(app)).toEqual([
    expect.objectContaining({ engine: 'fake', model: 'fake', decision: 'Prioritise', outcome: '1' }),
  ]);
  await fake.assertAwaitingReview(TicketTriage, (_j, outcome) => outcome === Priority.Urgent);
});
