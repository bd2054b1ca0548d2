// Claims on records in Review (issue 16, item 1): a lease stored on the record, one conditional UPDATE, a conflict
// naming the holder and expiry, expired leases free, resolve guarded by the claim, events and the list filters.
import {
  type AssessmentRecord,
  InvalidClaim,
  InvalidResolution,
  InvalidReviewer,
  ResolutionForbidden,
  ReviewClaimConflict,
  ReviewClaimed,
  ReviewReleased,
  UnknownRecord,
} from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  RefundOutcome,
  type ReviewApp,
  assessRefund,
  prepareDatabase,
  startApp,
  startSimulator,
} from '../review/review.fixtures';
import { DeskEvents, StaffPolicy, sleep } from './desk.fixtures';

const DATABASE = 'judgment_desk_claims';
const ann = { type: 'staff', id: 'ann' };
const bob = { type: 'staff', id: 'bob' };
const lead = { type: 'staff', id: 'lead' };

let simulator: JevSimulator;
let context: ReviewApp;
let desk: DeskEvents;

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  const started = await startSimulator();
  simulator = started.simulator;
  context = await startApp(DATABASE, started.url, {
    options: { resolutionPolicy: StaffPolicy },
    providers: [DeskEvents],
  });
  desk = context.app.get(DeskEvents);
});

afterAll(async () => {
  await context?.app.close();
  await simulator?.stop();
});

/** A new record awaiting Review. */
async function inReview(note = 'Refund me, it broke. [[abusive=0.5]]'): Promise<AssessmentRecord> {
  const { record } = await assessRefund(context, note);
  await context.records.outcome(record);
  expect(record.isAwaitingReview()).toBe(true);
  return record;
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const settled = await Promise.allSettled([promise]);
  if (settled[0].status === 'fulfilled') throw new Error('expected a refusal');
  return settled[0].reason as Error;
}

describe('claim', () => {
  it('stores the lease on the record (holder and expiry) and fires ReviewClaimed', async () => {
    const record = await inReview();
    const before = Date.now();
    const claimed = await context.records.claim(record.id, ann, { ttl: '10m' });
    const row = await context.row(record.id);
    expect([row.claimHolderType, row.claimHolderId]).toEqual(['staff', 'ann']);
    const expiresAt = new Date(row.claimExpiresAt!).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);
    expect(claimed.liveClaim()?.holder).toEqual({ type: 'staff', id: 'ann' });
    const [event] = desk.of<ReviewClaimed>(ReviewClaimed, record.id);
    expect(event.reviewer).toEqual(ann);
    expect(event.expiresAt.getTime()).toBe(new Date(row.claimExpiresAt!).getTime());
  });

  it("a second reviewer's claim while the lease is live fails with a conflict naming the holder and the expiry", async () => {
    const record = await inReview();
    await context.records.claim(record.id, ann);
    const row = await context.row(record.id);
    const error = await refusal(context.records.claim(record.id, bob));
    expect(error).toBeInstanceOf(ReviewClaimConflict);
    const conflict = error as ReviewClaimConflict;
    expect(conflict.holder).toEqual({ type: 'staff', id: 'ann' });
    expect(conflict.expiresAt.getTime()).toBe(new Date(row.claimExpiresAt!).getTime());
    expect(conflict.message).toContain(
      `Record #${record.id} is claimed by staff #ann until ${new Date(row.claimExpiresAt!).toISOString()}`,
    );
    expect((await context.row(record.id)).claimHolderId).toBe('ann');
  });

  it('an expired lease is free to take', async () => {
    const record = await inReview();
    await context.records.claim(record.id, ann, { ttl: '1s' });
    await sleep(1100);
    await context.records.claim(record.id, bob);
    expect((await context.row(record.id)).claimHolderId).toBe('bob');
  });

  it('50 concurrent claims of one record: exactly one wins, 49 conflicts name the winner', async () => {
    const record = await inReview();
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => context.records.claim(record.id, { type: 'staff', id: `r${i}` })),
    );
    const won = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(refused).toHaveLength(49);
    const row = await context.row(record.id);
    for (const { reason } of refused) {
      expect(reason).toBeInstanceOf(ReviewClaimConflict);
      expect((reason as ReviewClaimConflict).holder).toEqual({ type: 'staff', id: row.claimHolderId });
    }
    expect(desk.of(ReviewClaimed, record.id)).toHaveLength(1);
  });

  it('claiming a record one holds extends the lease', async () => {
    const record = await inReview();
    await context.records.claim(record.id, ann, { ttl: '1m' });
    const first = new Date((await context.row(record.id)).claimExpiresAt!).getTime();
    await context.records.claim(record.id, ann, { ttl: '20m' });
    expect(new Date((await context.row(record.id)).claimExpiresAt!).getTime()).toBeGreaterThan(first + 18 * 60_000);
  });

  it('a reviewer the ResolutionPolicy refuses cannot claim', async () => {
    const record = await inReview();
    await expect(context.records.claim(record.id, { type: 'customer', id: 1 })).rejects.toThrow(ResolutionForbidden);
    expect((await context.row(record.id)).claimHolderType).toBeNull();
  });
});

describe('renew and release', () => {
  it('renew extends the holder lease and fires nothing; someone else renewing is a conflict', async () => {
    const record = await inReview();
    await context.records.claim(record.id, ann, { ttl: '1m' });
    const events = desk.events.length;
    await context.records.renew(record.id, ann, { ttl: '30m' });
    const row = await context.row(record.id);
    expect(new Date(row.claimExpiresAt!).getTime()).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect(desk.events.length).toBe(events);
    await expect(context.records.renew(record.id, bob)).rejects.toThrow(ReviewClaimConflict);
  });

  it('renewing a claim one does not hold is an InvalidClaim saying to claim first', async () => {
    const record = await inReview();
    await expect(context.records.renew(record.id, ann)).rejects.toThrow(
      new InvalidClaim(
        `Record #${record.id} is not claimed by staff #ann, so there is no lease to renew: claim it first.`,
      ),
    );
  });

  it('renewing a claim whose lease ran out is a conflict saying to claim again, even when nobody else took it', async () => {
    const record = await inReview();
    await context.records.claim(record.id, ann, { ttl: '1s' });
    await sleep(1200);
    const error = await refusal(context.records.renew(record.id, ann, { ttl: '30m' }));
    expect(error).toBeInstanceOf(ReviewClaimConflict);
    expect(error.message).toMatch(
      new RegExp(
        `^Record #${record.id}: the claim of staff #ann ran out at .+Z; claim it again instead of renewing\\.$`,
      ),
    );
    expect((error as ReviewClaimConflict).holder).toEqual({ type: 'staff', id: 'ann' });
    expect(new Date((await context.row(record.id)).claimExpiresAt!).getTime()).toBeLessThan(Date.now());
    await context.records.claim(record.id, ann);
    expect((await context.row(record.id)).claimHolderId).toBe('ann');
  });

  it('release frees the record for others and fires ReviewReleased; releasing another reviewer claim is a conflict', async () => {
    const record = await inReview();
    await context.records.claim(record.id, ann);
    await expect(context.records.release(record.id, bob)).rejects.toThrow(ReviewClaimConflict);
    const released = await context.records.release(record.id, ann);
    expect(released.claimHolderType).toBeNull();
    expect(released.claimExpiresAt).toBeNull();
    expect(desk.of<ReviewReleased>(ReviewReleased, record.id).map((e) => e.reviewer)).toEqual([ann]);
    await context.records.claim(record.id, bob);
    expect((await context.row(record.id)).claimHolderId).toBe('bob');
  });
});

describe('resolving a claimed record', () => {
  it('another reviewer resolving a claimed record fails the same way; the holder resolves it', async () => {
    const record = await inReview();
    await context.records.claim(record.id, ann);
    const error = await refusal(context.records.resolve(record, RefundOutcome.Approve, bob));
    expect(error).toBeInstanceOf(ReviewClaimConflict);
    expect(error.message).toContain(`claimed by staff #ann until`);
    expect((await context.row(record.id)).resolvedAt).toBeNull();
    await context.records.resolve(record, RefundOutcome.Approve, ann);
    expect((await context.row(record.id)).resolverId).toBe('ann');
  });

  it('a stale copy read before the claim is refused too (the claim is checked in the UPDATE)', async () => {
    const record = await inReview();
    const stale = (await context.records.find(record.id))!;
    await context.records.claim(record.id, ann);
    await expect(context.records.resolve(stale, RefundOutcome.Reject, bob)).rejects.toThrow(ReviewClaimConflict);
  });

  it('the ResolutionPolicy canOverrideClaim lets a lead resolve over a claim', async () => {
    const record = await inReview();
    await context.records.claim(record.id, ann);
    const resolved = await context.records.resolve(record, RefundOutcome.Reject, lead);
    expect([resolved.resolution, resolved.resolverId]).toEqual(['reject', 'lead']);
  });

  it('an expired claim does not block anyone', async () => {
    const record = await inReview();
    await context.records.claim(record.id, ann, { ttl: '1s' });
    await sleep(1100);
    await context.records.resolve(record, RefundOutcome.Approve, bob);
    expect((await context.row(record.id)).resolverId).toBe('bob');
  });
});

describe('bad input', () => {
  it.each([
    ['an id over 255 characters', { type: 'staff', id: 'x'.repeat(256) }, /id is 256 characters long/],
    ['a type over 255 characters', { type: 's'.repeat(300), id: 'ann' }, /type is 300 characters long/],
    ['a NUL in the id', { type: 'staff', id: 'a\u0000b' }, /NUL character/],
    ['an unpaired surrogate in the id', { type: 'staff', id: 'a\ud800b' }, /unpaired surrogate/],
  ])('a reviewer with %s is an InvalidReviewer, not a database error', async (_case, reviewer, message) => {
    const record = await inReview();
    for (const attempt of [
      () => context.records.claim(record.id, reviewer),
      () => context.records.release(record.id, reviewer),
      () => context.records.awaitingReview({ claimedBy: reviewer }),
    ]) {
      const error = await refusal(attempt());
      expect(error).toBeInstanceOf(InvalidReviewer);
      expect(error).toBeInstanceOf(InvalidResolution);
      expect(error.message).toMatch(message);
    }
  });

  it('claiming a record id past the id column (2^31) is UnknownRecord, not a database error', async () => {
    await expect(context.records.claim(2 ** 31, ann)).rejects.toThrow(UnknownRecord);
    expect(await context.records.find(2 ** 31)).toBeNull();
  });

  it('claiming an unknown record is UnknownRecord', async () => {
    await expect(context.records.claim(987654, ann)).rejects.toThrow(new UnknownRecord(987654));
  });

  it.each([
    [0, /0 is outside 1 second to 24 hours/],
    ['-5m', /"-5m" is outside 1 second to 24 hours/],
    ['25h', /"25h" is outside 1 second to 24 hours/],
    ['soon', /"soon" cannot be parsed as a duration/],
    ['30', /"30" has no unit/],
  ])('a ttl of %p is an InvalidClaim naming the bound, and nothing is written', async (ttl, message) => {
    const record = await inReview();
    const error = await refusal(context.records.claim(record.id, ann, { ttl }));
    expect(error).toBeInstanceOf(InvalidClaim);
    expect(error.message).toMatch(message);
    expect((await context.row(record.id)).claimHolderType).toBeNull();
  });

  it('a record not awaiting Review cannot be claimed', async () => {
    const { record } = await assessRefund(context, 'Refund me. [[abusive=0.05]]');
    await context.records.outcome(record);
    await expect(context.records.claim(record.id, ann)).rejects.toThrow(InvalidResolution);
    await expect(context.records.claim(record.id, ann)).rejects.toThrow(/is not awaiting Review/);
  });

  it('a resolved record cannot be claimed', async () => {
    const record = await inReview();
    await context.records.resolve(record, RefundOutcome.Approve, ann);
    await expect(context.records.claim(record.id, bob)).rejects.toThrow(/is already resolved/);
  });
});

describe('the awaiting-Review list filters', () => {
  it('unclaimed lists records without a live lease; claimedBy lists the reviewer live claims', async () => {
    const free = await inReview();
    const mine = await inReview();
    const theirs = await inReview();
    const lapsed = await inReview();
    await context.records.claim(mine.id, ann);
    await context.records.claim(theirs.id, bob);
    await context.records.claim(lapsed.id, ann, { ttl: '1s' });
    await sleep(1100);
    const unclaimed = (await context.records.awaitingReview({ unclaimed: true })).map((r) => r.id);
    expect(unclaimed).toEqual(expect.arrayContaining([free.id, lapsed.id]));
    expect(unclaimed).not.toContain(mine.id);
    expect(unclaimed).not.toContain(theirs.id);
    const annHolds = (await context.records.awaitingReview({ claimedBy: ann })).map((r) => r.id);
    expect(annHolds).toContain(mine.id);
    expect(annHolds).not.toContain(lapsed.id);
    expect(annHolds).not.toContain(theirs.id);
    expect(annHolds).not.toContain(free.id);
  });

  it('unclaimed and claimedBy together are refused', async () => {
    await expect(context.records.awaitingReview({ unclaimed: true, claimedBy: ann })).rejects.toThrow(
      /exclude each other/,
    );
  });
});
