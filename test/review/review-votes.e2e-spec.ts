// N-of-M review on PostgreSQL (issue 30, point 5): blind votes, agreement resolves, disagreement goes to adjudication,
// race-safe like claims and Resolutions.
import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { Assessment } from 'nestjs-judgment';
import {
  Decision,
  InvalidResolution,
  JudgmentModule,
  ResolutionForbidden,
  type ResolutionPolicy,
  type Reviewer,
  ReviewResolved,
} from 'nestjs-judgment';
import { ReviewAdjudicated, ReviewAdjudicationNeeded, ReviewAgreed, ReviewVoteCast } from 'nestjs-judgment/calibration';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  RefundAbuse,
  RefundOutcome,
  type ReviewApp,
  assessRefund,
  prepareDatabase,
  startApp,
  startSimulator,
} from './review.fixtures';

const DATABASE = 'judgment_review_votes';

/** Escalates (Review) between .30 and .65, and a case in Review needs two agreeing reviewers. */
@Decision({
  outcomes: RefundOutcome,
  review: { outcomes: [RefundOutcome.Escalate], reviewers: 2 },
  name: 'paired-refund',
})
class PairedRefundDecision {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return RefundOutcome.Reject;
    if (abusive.above(0.3)) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}

/** Everyone may vote; only staff #lead may adjudicate. */
@Injectable()
class LeadAdjudicates implements ResolutionPolicy {
  canResolve(): boolean {
    return true;
  }
  canAdjudicate(reviewer: Reviewer): boolean {
    return (reviewer as { id: string }).id === 'lead';
  }
}

@Injectable()
class VoteEvents {
  readonly seen: Array<{ name: string; event: any }> = [];
  @OnEvent(ReviewVoteCast.NAME) cast(event: ReviewVoteCast) {
    this.seen.push({ name: ReviewVoteCast.NAME, event });
  }
  @OnEvent(ReviewAgreed.NAME) agreed(event: ReviewAgreed) {
    this.seen.push({ name: ReviewAgreed.NAME, event });
  }
  @OnEvent(ReviewAdjudicationNeeded.NAME) needed(event: ReviewAdjudicationNeeded) {
    this.seen.push({ name: ReviewAdjudicationNeeded.NAME, event });
  }
  @OnEvent(ReviewAdjudicated.NAME) adjudicated(event: ReviewAdjudicated) {
    this.seen.push({ name: ReviewAdjudicated.NAME, event });
  }
  @OnEvent(ReviewResolved.NAME) resolved(event: ReviewResolved) {
    this.seen.push({ name: ReviewResolved.NAME, event });
  }
  /** The names of the events about one record, in order. */
  about(recordId: number): string[] {
    return this.seen.filter(({ event }) => event.record.id === recordId).map(({ name }) => name);
  }
}

const staff = (id: string) => ({ type: 'staff', id });

let simulator: JevSimulator;
let context: ReviewApp;
let events: VoteEvents;

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  const started = await startSimulator();
  simulator = started.simulator;
  context = await startApp(DATABASE, started.url, {
    options: { resolutionPolicy: LeadAdjudicates },
    imports: [JudgmentModule.forFeature([PairedRefundDecision])],
    providers: [VoteEvents],
  });
  events = context.app.get(VoteEvents);
});

afterAll(async () => {
  await context?.app.close();
  await simulator?.stop();
});

/** The votes stored on a record, in the order cast (read from the table itself). */
async function storedVotes(recordId: number): Promise<Array<{ reviewer_id: string; outcome: string }>> {
  return context.dataSource.query(
    'SELECT reviewer_id, outcome FROM judgment_review_votes WHERE record_id = $1 ORDER BY id',
    [recordId],
  );
}

/** A new record in Review under the 2-of-2 Decision. */
async function inReview(note: string) {
  const { record } = await assessRefund(context, `${note} [[abusive=0.5]]`);
  await context.records.decide(record, new PairedRefundDecision());
  const row = await context.row(record.id);
  expect(row.isAwaitingReview()).toBe(true);
  return row;
}

it('2 of 2 agree: the first vote leaves the case in Review, the second resolves it; vote, vote, agreed, resolved', async () => {
  const record = await inReview('Refund me, it broke.');
  const first = await context.records.resolve(record, RefundOutcome.Approve, staff('ann'));
  expect(first.isResolved()).toBe(false);
  expect(first.isAwaitingReview()).toBe(true);
  const second = await context.records.resolve(await context.row(record.id), RefundOutcome.Approve, staff('bob'));
  expect(second.isResolved()).toBe(true);
  const row = await context.row(record.id);
  expect([row.resolution, row.resolverType, row.resolverId]).toEqual(['approve', 'staff', 'bob']);
  expect(events.about(record.id)).toEqual([
    ReviewVoteCast.NAME,
    ReviewVoteCast.NAME,
    ReviewAgreed.NAME,
    ReviewResolved.NAME,
  ]);
  const cast = events.seen.filter(({ name, event }) => name === ReviewVoteCast.NAME && event.record.id === record.id);
  expect(cast.map(({ event }) => [event.cast, event.required])).toEqual([
    [1, 2],
    [2, 2],
  ]);
  expect(await storedVotes(record.id)).toEqual([
    { reviewer_id: 'ann', outcome: 'approve' },
    { reviewer_id: 'bob', outcome: 'approve' },
  ]);
});

it('2 of 2 disagree: the case needs adjudication; a third vote and a non-adjudicator are refused; the lead settles it', async () => {
  const record = await inReview('Refund me, it never came.');
  await context.records.resolve(record, RefundOutcome.Approve, staff('ann'));
  const after = await context.records.resolve(await context.row(record.id), RefundOutcome.Reject, staff('bob'));
  expect(after.isResolved()).toBe(false);
  expect(after.isAwaitingReview()).toBe(true);
  expect(await context.records.reviewVotes(after, staff('carol'))).toMatchObject({ cast: 2, needsAdjudication: true });
  await expect(context.records.resolve(after, RefundOutcome.Approve, staff('carol'))).rejects.toThrow(
    ResolutionForbidden,
  );
  await expect(context.records.resolve(after, RefundOutcome.Approve, staff('carol'))).rejects.toThrow(
    /awaits adjudication: its 2 votes disagree \("approve", "reject"\).*canAdjudicate does not allow staff #carol/,
  );
  const settled = await context.records.resolve(after, RefundOutcome.Reject, staff('lead'));
  expect(settled.isResolved()).toBe(true);
  const row = await context.row(record.id);
  expect([row.resolution, row.resolverId]).toEqual(['reject', 'lead']);
  expect(events.about(record.id)).toEqual([
    ReviewVoteCast.NAME,
    ReviewVoteCast.NAME,
    ReviewAdjudicationNeeded.NAME,
    ReviewResolved.NAME,
    ReviewAdjudicated.NAME,
  ]);
  expect(await storedVotes(record.id)).toHaveLength(2);
});

it('blind: a reviewer who has not voted sees the count, not the votes; a voter sees them; all see them once resolved', async () => {
  const record = await inReview('Refund me, wrong size.');
  await context.records.resolve(record, RefundOutcome.Approve, staff('ann'));
  const row = await context.row(record.id);
  expect(await context.records.reviewVotes(row, staff('bob'))).toEqual({
    required: 2,
    cast: 1,
    needsAdjudication: false,
    voted: false,
    votes: null,
  });
  expect(await context.records.reviewVotes(row, null)).toMatchObject({ cast: 1, votes: null });
  const own = await context.records.reviewVotes(row, staff('ann'));
  expect(own).toMatchObject({ voted: true, cast: 1 });
  expect(own?.votes?.map((vote) => vote.outcome)).toEqual(['approve']);
  await context.records.resolve(row, RefundOutcome.Approve, staff('bob'));
  const resolved = await context.records.reviewVotes(await context.row(record.id), staff('carol'));
  expect(resolved?.votes?.map((vote) => vote.reviewer.id)).toEqual(['ann', 'bob']);
});

it('two last votes at once (20 rounds): exactly one completes the count; the other is refused; resolved once at most', async () => {
  for (let round = 0; round < 20; round++) {
    const record = await inReview(`Refund me, round ${round}.`);
    await context.records.resolve(record, RefundOutcome.Approve, staff('ann'));
    const [x, y] = await Promise.all([context.row(record.id), context.row(record.id)]);
    // Half the rounds agree with the first vote on one side, so a double count would resolve twice.
    const results = await Promise.allSettled([
      context.records.resolve(x, RefundOutcome.Approve, staff(`bob-${round}`)),
      context.records.resolve(y, round % 2 ? RefundOutcome.Approve : RefundOutcome.Reject, staff(`cat-${round}`)),
    ]);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect(refused[0].reason).toBeInstanceOf(InvalidResolution);
    expect(refused[0].reason.message).toMatch(/already resolved|awaits adjudication/);
    expect(await storedVotes(record.id)).toHaveLength(2);
    const resolvedEvents = events.about(record.id).filter((name) => name === ReviewResolved.NAME);
    const agreed = events.about(record.id).filter((name) => name === ReviewAgreed.NAME);
    const needed = events.about(record.id).filter((name) => name === ReviewAdjudicationNeeded.NAME);
    expect(agreed.length + needed.length).toBe(1);
    expect(resolvedEvents).toHaveLength(agreed.length);
    expect((await context.row(record.id)).isResolved()).toBe(agreed.length === 1);
  }
});

it('the same reviewer voting twice at once: one vote is kept, the other is refused as already voted', async () => {
  for (let round = 0; round < 10; round++) {
    const record = await inReview(`Refund me, twice ${round}.`);
    const [x, y] = await Promise.all([context.row(record.id), context.row(record.id)]);
    const results = await Promise.allSettled([
      context.records.resolve(x, RefundOutcome.Approve, staff('ann')),
      context.records.resolve(y, RefundOutcome.Reject, staff('ann')),
    ]);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect(refused[0].reason.message).toMatch(/staff #ann already voted on record #\d+/);
    expect(await storedVotes(record.id)).toHaveLength(1);
    expect((await context.row(record.id)).isResolved()).toBe(false);
  }
});

it("reviewerAgreement: raw agreement and Cohen's kappa of the votes per Judgment and per reviewer pair, with counts", async () => {
  // Four fresh cases for two new reviewers: agree approve, agree reject, disagree twice.
  const pairs: Array<[RefundOutcome, RefundOutcome]> = [
    [RefundOutcome.Approve, RefundOutcome.Approve],
    [RefundOutcome.Reject, RefundOutcome.Reject],
    [RefundOutcome.Approve, RefundOutcome.Reject],
    [RefundOutcome.Reject, RefundOutcome.Approve],
  ];
  for (const [index, [first, second]] of pairs.entries()) {
    const record = await inReview(`Refund me, agreement ${index}.`);
    await context.records.resolve(record, first, staff('kappa-x'));
    await context.records.resolve(await context.row(record.id), second, staff('kappa-y'));
  }
  const { judgments, pairs: byPair } = await context.records.reviewerAgreement('refund-abuse');
  const pair = byPair.find((entry) => entry.reviewers.join() === 'staff #kappa-x,staff #kappa-y');
  // pₒ = 2/4; each side chose approve and reject twice: pₑ = .5·.5 + .5·.5 = .5, so κ = 0.
  expect(pair).toEqual({
    judgment: 'refund-abuse',
    reviewers: ['staff #kappa-x', 'staff #kappa-y'],
    pairs: 4,
    rawAgreement: 0.5,
    kappa: 0,
  });
  expect(judgments).toHaveLength(1);
  expect(judgments[0].judgment).toBe('refund-abuse');
  expect(judgments[0].pairs).toBeGreaterThanOrEqual(4);
});

it('nobody holds a case they cannot work: a voter may not claim it again, nor a non-adjudicator once votes disagree', async () => {
  const record = await inReview('Refund me, claims.');
  await context.records.claim(record.id, staff('ann'));
  await context.records.resolve(await context.row(record.id), RefundOutcome.Approve, staff('ann'));
  // Ann's vote released her claim; she may not take the case back from the others.
  expect((await context.row(record.id)).claimHolderId).toBeNull();
  await expect(context.records.claim(record.id, staff('ann'))).rejects.toThrow(
    /staff #ann already voted on record #\d+, so they may not claim it/,
  );
  await context.records.claim(record.id, staff('bob'));
  await context.records.resolve(await context.row(record.id), RefundOutcome.Reject, staff('bob'));
  await expect(context.records.claim(record.id, staff('carol'))).rejects.toThrow(ResolutionForbidden);
  const claimed = await context.records.claim(record.id, staff('lead'));
  expect(claimed.claimHolderId).toBe('lead');
});
