// Review deadlines (issue 16, item 2): a Decision's declared deadline resolves a forgotten Review to its onExpiry
// Outcome as the system, race-safe against a person; the sweep (queue off) and the delayed BullMQ job (queue on), both
// across a restart. Real PostgreSQL and Redis.
import { randomUUID } from 'node:crypto';
import { BullModule } from '@nestjs/bullmq';
import {
  type AssessmentRecord,
  InvalidResolution,
  type JudgmentModuleOptions,
  JudgmentModule,
  ReviewExpired,
  ReviewResolved,
} from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import { RefundOutcome, type ReviewApp, prepareDatabase, startApp, startSimulator } from '../review/review.fixtures';
import { REDIS, clearPrefix } from '../support/redis';
import { DeadlineRefund, DeskEvents, StaffPolicy, decidedDeadlineRefund, sleep } from './desk.fixtures';

const DATABASE = 'judgment_desk_deadlines';
const ESCALATE = 'Refund me, it arrived late. [[abusive=0.5]]';

let simulator: JevSimulator;
let url: string;
const apps: ReviewApp[] = [];

/** An app of this suite with the deadline Decision registered and the desk events kept. */
async function deskApp(options: JudgmentModuleOptions & Record<string, unknown> = {}, imports: any[] = []) {
  const context = await startApp(DATABASE, url, {
    options: { resolutionPolicy: StaffPolicy, review: { sweepInterval: false }, ...options },
    providers: [DeskEvents],
    imports: [JudgmentModule.forFeature([DeadlineRefund]), ...imports],
  });
  apps.push(context);
  return { context, desk: context.app.get(DeskEvents) };
}

async function close(context: ReviewApp): Promise<void> {
  apps.splice(apps.indexOf(context), 1);
  await context.app.close();
}

/** Waits until the record is resolved (or `ms` pass); resolves to the row. */
async function resolvedWithin(context: ReviewApp, id: number, ms: number): Promise<AssessmentRecord> {
  const until = Date.now() + ms;
  for (;;) {
    const row = await context.row(id);
    if (row.resolvedAt !== null || Date.now() > until) return row;
    await sleep(100);
  }
}

beforeAll(async () => {
  await prepareDatabase(DATABASE);
  ({ simulator, url } = await startSimulator());
});

afterAll(async () => {
  for (const context of [...apps]) await context.app.close();
  await simulator?.stop();
});

describe('a declared deadline', () => {
  let context: ReviewApp;
  let desk: DeskEvents;

  beforeAll(async () => {
    ({ context, desk } = await deskApp());
  });

  it('is stored on the record when it enters Review: the request time plus the declared duration', async () => {
    const record = await decidedDeadlineRefund(context, ESCALATE);
    expect(record.isAwaitingReview()).toBe(true);
    const requested = new Date(record.reviewRequestedAt!).getTime();
    expect(new Date(record.reviewDeadlineAt!).getTime() - requested).toBe(2000);
  });

  it('a Decision without a deadline leaves the record waiting: no deadline, never expired', async () => {
    const { record } = await import('../review/review.fixtures').then(({ assessRefund }) =>
      assessRefund(context, 'Refund me. [[abusive=0.5]]'),
    );
    await context.records.outcome(record);
    const row = await context.row(record.id);
    expect(row.isAwaitingReview()).toBe(true);
    expect(row.reviewDeadlineAt).toBeNull();
  });

  it('before it passes nothing expires; after, the system resolves with onExpiry and ReviewExpired precedes ReviewResolved', async () => {
    const record = await decidedDeadlineRefund(context, ESCALATE);
    expect(await context.records.expireDue()).toBe(0);
    expect((await context.row(record.id)).resolvedAt).toBeNull();
    await sleep(2100);
    expect(await context.records.expireDue()).toBeGreaterThanOrEqual(1);
    const row = await context.row(record.id);
    expect(row).toMatchObject({
      outcome: RefundOutcome.Escalate,
      resolution: RefundOutcome.Reject,
      resolverType: 'system',
      resolverId: 'deadline',
    });
    expect(desk.namesFor(record.id)).toEqual([ReviewExpired.NAME, ReviewResolved.NAME]);
    const [expired] = desk.of<ReviewExpired>(ReviewExpired, record.id);
    expect(expired).toMatchObject({ reason: 'deadline', outcome: 'escalate', resolution: 'reject' });
    expect(expired.deadlineAt.getTime()).toBe(new Date(row.reviewDeadlineAt!).getTime());
    const [resolved] = desk.of<ReviewResolved>(ReviewResolved, record.id);
    expect(resolved.reviewer).toEqual({ type: 'system', id: 'deadline' });
    expect(await context.records.expireDue()).toBe(0);
  });

  it('a person resolving before the deadline wins; the deadline then changes nothing', async () => {
    const record = await decidedDeadlineRefund(context, ESCALATE);
    await context.records.resolve(record, RefundOutcome.Approve, { type: 'staff', id: 'ann' });
    await sleep(2100);
    await context.records.expireDue();
    expect(await context.row(record.id)).toMatchObject({ resolution: 'approve', resolverId: 'ann' });
    expect(desk.of(ReviewExpired, record.id)).toHaveLength(0);
  });

  it('race-safe: a person and the expiry at the same moment on 20 records, exactly one wins each', async () => {
    const records = [];
    for (let i = 0; i < 20; i++) records.push(await decidedDeadlineRefund(context, ESCALATE));
    await sleep(2100);
    const people = records.map((record) =>
      context.records.resolve(record, RefundOutcome.Approve, { type: 'staff', id: `p${record.id}` }),
    );
    const [sweep, ...resolutions] = await Promise.allSettled([context.records.expireDue(), ...people]);
    expect(sweep.status).toBe('fulfilled');
    const personWon = resolutions.filter((result) => result.status === 'fulfilled').length;
    process.stdout.write(`deadline race: ${personWon} person wins, ${20 - personWon} expiry wins\n`);
    for (const [i, record] of records.entries()) {
      const row = await context.row(record.id);
      const resolved = desk.of<ReviewResolved>(ReviewResolved, record.id);
      expect(resolved).toHaveLength(1);
      if (resolutions[i].status === 'fulfilled') {
        expect(row).toMatchObject({ resolution: 'approve', resolverId: `p${record.id}` });
        expect(desk.of(ReviewExpired, record.id)).toHaveLength(0);
      } else {
        expect((resolutions[i] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidResolution);
        expect(row).toMatchObject({ resolution: 'reject', resolverType: 'system', resolverId: 'deadline' });
        expect(desk.namesFor(record.id)).toEqual([ReviewExpired.NAME, ReviewResolved.NAME]);
      }
    }
  });
});

describe('queue off: the sweep', () => {
  it('an interval in the app expires a record whose deadline was set before a restart', async () => {
    const { context: before } = await deskApp();
    const record = await decidedDeadlineRefund(before, ESCALATE);
    await close(before);
    const { context: after, desk } = await deskApp({ review: { sweepInterval: '1s' } });
    const row = await resolvedWithin(after, record.id, 6000);
    expect(row).toMatchObject({ resolution: 'reject', resolverType: 'system', resolverId: 'deadline' });
    expect(desk.namesFor(record.id)).toEqual([ReviewExpired.NAME, ReviewResolved.NAME]);
  });
});

describe('queue on: a delayed BullMQ job', () => {
  const prefix = `judgment-desk-deadlines-${randomUUID()}`;
  const queued = () => deskApp({ queue: { enabled: true } }, [BullModule.forRoot({ connection: REDIS, prefix })]);

  afterAll(async () => {
    await clearPrefix(prefix);
  });

  it('the deadline set before a restart fires after it, from Redis', async () => {
    const { context: before } = await queued();
    const record = await decidedDeadlineRefund(before, ESCALATE);
    await close(before);
    const { context: after, desk } = await queued();
    const row = await resolvedWithin(after, record.id, 10_000);
    expect(row).toMatchObject({ resolution: 'reject', resolverType: 'system', resolverId: 'deadline' });
    expect(desk.namesFor(record.id)).toEqual([ReviewExpired.NAME, ReviewResolved.NAME]);
    expect(new Date(row.resolvedAt!).getTime()).toBeGreaterThanOrEqual(new Date(row.reviewDeadlineAt!).getTime());
  });
});
