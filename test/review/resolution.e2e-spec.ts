// Review and Resolution (SPEC §2.6, §2.15; reference §9): authorization first, InvalidResolution, one conditional UPDATE.
import { Global, Injectable, Module } from '@nestjs/common';
import {
  type Assessment,
  type AssessmentRecord,
  AssessmentDecided,
  Decision,
  InvalidResolution,
  ResolutionForbidden,
  type ResolutionPolicy,
  type Reviewer,
  ReviewRequested,
  ReviewResolved,
} from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import {
  Moderator,
  Priority,
  type RefundAbuse,
  RefundOutcome,
  type ReviewApp,
  StrictRefundDecision,
  TicketTriage,
  assessRefund,
  prepareDatabase,
  startApp,
  startSimulator,
} from './review.fixtures';

const DATABASE = 'judgment_review_resolution';

/** A Decision the app applies by hand but never registered with forFeature: it escalates everything. */
@Decision({ name: 'unregistered-refund-decision', outcomes: RefundOutcome, review: [RefundOutcome.Escalate] })
class UnregisteredRefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(_assessment: Assessment<RefundAbuse>): RefundOutcome {
    return RefundOutcome.Escalate;
  }
}

/** An app service the policy injects: active Moderators and the listed staff ids may resolve. */
@Injectable()
class ReviewerDirectory {
  readonly asked: Reviewer[] = [];
  readonly staff = new Set(['7']);

  allows(reviewer: Reviewer): boolean {
    this.asked.push(reviewer);
    if (reviewer instanceof Moderator) return reviewer.active;
    return this.staff.has(String((reviewer as { id: unknown }).id));
  }
}

@Global()
@Module({ providers: [ReviewerDirectory], exports: [ReviewerDirectory] })
class ReviewerDirectoryModule {}

@Injectable()
class DirectoryPolicy implements ResolutionPolicy {
  constructor(private readonly directory: ReviewerDirectory) {}

  async canResolve(reviewer: Reviewer): Promise<boolean> {
    return this.directory.allows(reviewer);
  }
}

const STAFF = { type: 'staff', id: 7 };
const OUTSIDER = { type: 'staff', id: 13 };

let simulator: JevSimulator;
let url: string;
let context: ReviewApp;

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  ({ simulator, url } = await startSimulator());
  context = await startApp(DATABASE, url, {
    options: { resolutionPolicy: DirectoryPolicy },
    imports: [ReviewerDirectoryModule],
  });
});

afterAll(async () => {
  await context?.app.close();
  await simulator?.stop();
});

/** A RefundAbuse record the default Decision sent to Review (Escalate). */
async function inReviewOn(app: ReviewApp): Promise<AssessmentRecord> {
  const { record } = await assessRefund(app, 'Refund me, it broke. [[abusive=0.5]]');
  await app.records.outcome(record);
  expect(record.isAwaitingReview()).toBe(true);
  return record;
}

const inReview = () => inReviewOn(context);

async function refusal(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: Error) => error,
  );
}

async function moderator(active = true): Promise<Moderator> {
  const repository = context.dataSource.getRepository(Moderator);
  return repository.save(repository.create({ active }));
}

describe('Resolving a Review', () => {
  it('with no ResolutionPolicy configured every reviewer is refused, whatever the record', async () => {
    const unguarded = await startApp(DATABASE, url, { logs: context.logs });
    try {
      const record = await inReview();
      const { record: undecided } = await assessRefund(context, 'Refund me.');
      for (const target of [record, undecided]) {
        const error = await refusal(unguarded.records.resolve(target, RefundOutcome.Approve, STAFF));
        expect(error).toBeInstanceOf(ResolutionForbidden);
        expect(error.message).toMatch(new RegExp(`record #${target.id}: no ResolutionPolicy is configured`));
      }
      expect((await context.row(record.id)).isResolved()).toBe(false);
    } finally {
      await unguarded.app.close();
    }
  });

  it('the ResolutionPolicy is instantiated through DI and asked before the record is checked', async () => {
    const directory = context.app.get(ReviewerDirectory);
    const { record: undecided } = await assessRefund(context, 'Refund me.');
    const error = await refusal(context.records.resolve(undecided, 'no-such-outcome', OUTSIDER));
    expect(error).toBeInstanceOf(ResolutionForbidden);
    expect(error.message).toMatch(`refused reviewer staff #13 resolving record #${undecided.id}`);
    expect(directory.asked.at(-1)).toBe(OUTSIDER);
    await expect(context.records.resolve(undecided, 'no-such-outcome', STAFF)).rejects.toThrow(InvalidResolution);
  });

  it('a reviewer that is neither { type, id } nor a saved entity is refused with InvalidResolution', async () => {
    const { record } = await assessRefund(context, 'Refund me.');
    const error = await refusal(
      context.records.resolve(record, RefundOutcome.Approve, { id: 7 } as unknown as Reviewer),
    );
    expect(error).toBeInstanceOf(InvalidResolution);
    expect(error.message).toMatch('A reviewer is { type, id } or a saved TypeORM entity');
    expect((await context.row(record.id)).isResolved()).toBe(false);
  });

  it("the app's own provider of the ResolutionPolicy class is used, fully constructed", async () => {
    const own = await startApp(DATABASE, url, {
      options: { resolutionPolicy: DirectoryPolicy },
      imports: [ReviewerDirectoryModule],
      providers: [DirectoryPolicy],
    });
    try {
      const record = await inReviewOn(own);
      const resolved = await own.records.resolve(record, RefundOutcome.Approve, STAFF);
      expect(resolved.resolution).toBe(RefundOutcome.Approve);
      expect(own.app.get(ReviewerDirectory).asked.at(-1)).toBe(STAFF);
    } finally {
      await own.app.close();
    }
  });

  it('a refused resolution changes nothing and fires nothing', async () => {
    const record = await inReview();
    const before = await context.row(record.id);
    await expect(context.records.resolve(record, RefundOutcome.Approve, await moderator(false))).rejects.toThrow(
      ResolutionForbidden,
    );
    await expect(context.records.resolve(record, RefundOutcome.Escalate, STAFF)).rejects.toThrow(InvalidResolution);
    expect(await context.row(record.id)).toEqual(before);
    expect(context.events.of(ReviewResolved, record.id)).toEqual([]);
  });

  it('records the Resolution and the reviewer entity, keeps the automatic Outcome, and fires ReviewResolved', async () => {
    const record = await inReview();
    const reviewer = await moderator();
    const resolved = await context.records.resolve(record, RefundOutcome.Approve, reviewer);
    const row = await context.row(record.id);
    expect(row).toMatchObject({
      outcome: 'escalate',
      resolution: 'approve',
      resolverType: 'Moderator',
      resolverId: String(reviewer.id),
    });
    expect(row.resolvedAt).toBeInstanceOf(Date);
    expect(row.isResolved()).toBe(true);
    expect(row.isAwaitingReview()).toBe(false);
    expect(resolved).toBe(record);
    expect(record.isResolved()).toBe(true);
    const [event] = context.events.of<ReviewResolved>(ReviewResolved, record.id);
    expect(event).toMatchObject({ outcome: RefundOutcome.Escalate, resolution: RefundOutcome.Approve });
    expect(event.reviewer).toBe(reviewer);
    expect(event.record.resolution).toBe('approve');
  });

  it('a { type, id } reviewer is recorded as given', async () => {
    const record = await inReview();
    await context.records.resolve(record, RefundOutcome.Reject, STAFF);
    expect(await context.row(record.id)).toMatchObject({
      resolution: 'reject',
      resolverType: 'staff',
      resolverId: '7',
    });
  });

  it('InvalidResolution: already resolved (a fresh copy and a stale copy alike)', async () => {
    const record = await inReview();
    const stale = await context.row(record.id);
    await context.records.resolve(record, RefundOutcome.Approve, STAFF);
    for (const copy of [record, stale]) {
      const error = await refusal(context.records.resolve(copy, RefundOutcome.Reject, STAFF));
      expect(error).toBeInstanceOf(InvalidResolution);
      expect(error.message).toMatch(new RegExp(`Record #${record.id} is already resolved \\("approve" by staff #7\\)`));
    }
    expect(await context.row(record.id)).toMatchObject({ resolution: 'approve' });
    expect(context.events.of(ReviewResolved, record.id)).toHaveLength(1);
  });

  it('InvalidResolution: not awaiting Review', async () => {
    const { record: undecided } = await assessRefund(context, 'Refund me.');
    const { record: approved } = await assessRefund(context, 'Refund me. [[abusive=0.1]]');
    await context.records.outcome(approved);
    for (const record of [undecided, approved]) {
      await expect(context.records.resolve(record, RefundOutcome.Approve, STAFF)).rejects.toThrow(
        new RegExp(`Record #${record.id} is not awaiting Review`),
      );
      expect((await context.row(record.id)).resolution).toBeNull();
    }
  });

  it("InvalidResolution: the resolution is not an Outcome of the record's Decision", async () => {
    const record = await inReview();
    for (const resolution of ['refund', 'Approve', Priority.Low]) {
      await expect(context.records.resolve(record, resolution, STAFF)).rejects.toThrow(
        new RegExp(`cannot resolve record #${record.id}: it is not an Outcome of refund-decision`),
      );
    }
    expect((await context.row(record.id)).isAwaitingReview()).toBe(true);
  });

  it('InvalidResolution: the Decision that sent the record to Review is not registered, so its Outcomes are unknown', async () => {
    const { assessment, record } = await assessRefund(context, 'Refund me.');
    await assessment.decide(new UnregisteredRefundDecision());
    const error = await refusal(context.records.resolve(await context.row(record.id), RefundOutcome.Approve, STAFF));
    expect(error).toBeInstanceOf(InvalidResolution);
    expect(error.message).toMatch(/unregistered-refund-decision, which is not registered.*JudgmentModule\.forFeature/);
    expect((await context.row(record.id)).isAwaitingReview()).toBe(true);
  });

  it('InvalidResolution: the resolution itself requires Review', async () => {
    const record = await inReview();
    await expect(context.records.resolve(record, RefundOutcome.Escalate, STAFF)).rejects.toThrow(
      /"escalate" cannot resolve record #\d+: that Outcome itself requires Review/,
    );
  });

  it('InvalidResolution checks run in order: already resolved, not awaiting Review, not an Outcome', async () => {
    const resolved = await inReview();
    await context.records.resolve(resolved, RefundOutcome.Approve, STAFF);
    await expect(context.records.resolve(resolved, 'nonsense', STAFF)).rejects.toThrow(/already resolved/);
    const { record: undecided } = await assessRefund(context, 'Refund me.');
    await expect(context.records.resolve(undecided, 'nonsense', STAFF)).rejects.toThrow(/not awaiting Review/);
  });

  it('numeric Outcome enums round-trip: the automatic Outcome and the Resolution are numbers again', async () => {
    const customer = await context.customer('Server down, answer now! [[urgent=0.9]]');
    await context.judge.assess(new TicketTriage(customer));
    const record = (await context.records.latest(customer, TicketTriage))!;
    await expect(context.records.outcome(record)).resolves.toMatchObject({ outcome: Priority.Urgent });
    expect(record).toMatchObject({ outcome: '2', outcomeType: 'Priority', decision: 'ticket-decision' });
    await context.records.resolve(record, Priority.Low, STAFF);
    expect(await context.row(record.id)).toMatchObject({ outcome: '2', resolution: '0' });
    const [event] = context.events.of<ReviewResolved>(ReviewResolved, record.id);
    expect(event.outcome).toBe(Priority.Urgent);
    expect(event.resolution).toBe(Priority.Low);
  });

  it('after Resolution, further decisions change nothing on the row but still fire AssessmentDecided', async () => {
    const record = await inReview();
    await context.records.resolve(record, RefundOutcome.Approve, STAFF);
    const resolvedRow = await context.row(record.id);
    // A case that went through Review is never handed back as an automatic Outcome: its Resolution settled it.
    await expect(context.records.decide(record, new StrictRefundDecision())).resolves.toMatchObject({
      outcome: RefundOutcome.Reject,
      reason: { cause: 'band' },
    });
    await expect(context.records.outcome(record)).resolves.toMatchObject({
      outcome: RefundOutcome.Escalate,
      reason: { cause: 'band' },
    });
    expect(await context.row(record.id)).toEqual(resolvedRow);
    expect(context.events.of(AssessmentDecided, record.id)).toHaveLength(3);
    expect(context.events.of(ReviewRequested, record.id)).toHaveLength(1);
  });
});
