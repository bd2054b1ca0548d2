// Race safety on PostgreSQL: Review entry and Resolution are each one conditional UPDATE (SPEC §2.6, §3 rule 6).
import { Injectable } from '@nestjs/common';
import {
  AssessmentDecided,
  AwaitingReview,
  decidedOutcome,
  InvalidResolution,
  type ResolutionPolicy,
  ReviewRequested,
  ReviewResolved,
} from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  RefundOutcome,
  type ReviewApp,
  assessRefund,
  prepareDatabase,
  startApp,
  startSimulator,
} from './review.fixtures';

const DATABASE = 'judgment_review_concurrency';

@Injectable()
class EveryoneMayResolve implements ResolutionPolicy {
  canResolve(): boolean {
    return true;
  }
}

let simulator: JevSimulator;
let context: ReviewApp;

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  const started = await startSimulator();
  simulator = started.simulator;
  context = await startApp(DATABASE, started.url, { options: { resolutionPolicy: EveryoneMayResolve } });
});

afterAll(async () => {
  await context?.app.close();
  await simulator?.stop();
});

it('20 concurrent decisions of one record: Review entered once, ReviewRequested once, AssessmentDecided 20 times', async () => {
  const { record } = await assessRefund(context, 'Refund me, twice over. [[abusive=0.5]]');
  const copies = await Promise.all(Array.from({ length: 20 }, () => context.records.find(record.id)));
  const outcomes = await Promise.all(copies.map((copy) => context.records.outcome(copy!)));
  expect(outcomes.map(decidedOutcome)).toEqual(Array(20).fill(RefundOutcome.Escalate));
  expect(outcomes.every((decided) => decided instanceof AwaitingReview && decided.recordId === record.id)).toBe(true);
  const row = await context.row(record.id);
  expect(row.isAwaitingReview()).toBe(true);
  const requested = context.events.of<ReviewRequested>(ReviewRequested, record.id);
  expect(requested).toHaveLength(1);
  expect(requested[0].requestedAt).toEqual(row.reviewRequestedAt);
  expect(context.events.of(AssessmentDecided, record.id)).toHaveLength(20);
});

it('50 concurrent resolutions of one record: exactly one wins, 49 are refused as already resolved, one ReviewResolved', async () => {
  const { record } = await assessRefund(context, 'Refund me, it never arrived. [[abusive=0.5]]');
  await context.records.outcome(record);
  const copies = await Promise.all(Array.from({ length: 50 }, () => context.records.find(record.id)));
  expect(copies.every((copy) => copy!.isAwaitingReview())).toBe(true);
  const results = await Promise.allSettled(
    copies.map((copy, reviewer) =>
      context.records.resolve(copy!, reviewer % 2 ? RefundOutcome.Approve : RefundOutcome.Reject, {
        type: 'staff',
        id: reviewer,
      }),
    ),
  );
  const won = results.filter((result) => result.status === 'fulfilled');
  const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
  expect(won).toHaveLength(1);
  expect(refused).toHaveLength(49);
  const row = await context.row(record.id);
  for (const { reason } of refused) {
    expect(reason).toBeInstanceOf(InvalidResolution);
    expect((reason as Error).message).toContain(
      `Record #${record.id} is already resolved (${JSON.stringify(row.resolution)} by staff #${row.resolverId})`,
    );
  }
  const resolved = context.events.of<ReviewResolved>(ReviewResolved, record.id);
  expect(resolved).toHaveLength(1);
  expect(resolved[0].resolution).toBe(row.resolution);
  expect(resolved[0].reviewer).toEqual({ type: 'staff', id: Number(row.resolverId) });
});
