// The demo app's Actions (event listeners) are idempotent and follow the Review: SQLite in memory, the Jev
// simulator started in-process (the embedded default).
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { getRepositoryToken } from '@nestjs/typeorm';
import { AssessmentRecords, AwaitingReview, ReviewRequested } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import { supportDeskConfig } from '../../apps/support-desk/src/config/support-desk.config';
import { PostsService } from '../../apps/support-desk/src/moderation/posts.service';
import { Refund, RefundStatus } from '../../apps/support-desk/src/refunds/refund.entity';
import { RefundsService } from '../../apps/support-desk/src/refunds/refunds.service';
import { ReviewNotification } from '../../apps/support-desk/src/review/review-notification.entity';
import { SupportDeskModule } from '../../apps/support-desk/src/support-desk.module';
import { TicketsService } from '../../apps/support-desk/src/tickets/tickets.service';
import { freshCloneEnv } from './support';

const APPROVE = 'The kettle leaks from the base. [[abusive=0.05]] [[credibility=3:0.85]]';
const ESCALATE = 'It does not fit; I wore it once. [[abusive=0.45]] [[credibility=2:0.6]]';
const ALICE = { type: 'agent', id: 'alice' };

let app: INestApplication;
let refunds: RefundsService;
let records: AssessmentRecords;

beforeAll(async () => {
  const env = freshCloneEnv({ JUDGMENT_LOG: 'false', SUPPORT_DESK_AGENTS: 'alice' });
  app = await NestFactory.create(SupportDeskModule.forRoot(supportDeskConfig(env, { sqlitePath: ':memory:' })), {
    logger: false,
    abortOnError: false,
  });
  await app.init();
  refunds = app.get(RefundsService);
  records = app.get(AssessmentRecords);
});

afterAll(() => app?.close());

async function refund(explanation: string, status = RefundStatus.Pending): Promise<Refund> {
  const repository = app.get<Repository<Refund>>(getRepositoryToken(Refund));
  return repository.save(repository.create({ item: 'Kettle', amountEur: 35, explanation, status }));
}

it('an automatic Outcome acts only on a refund that is still pending', async () => {
  const pending = await refund(APPROVE);
  const settled = await refund(APPROVE, RefundStatus.Rejected);
  expect((await refunds.assess(pending)).decided).toBe('approve');
  expect((await refunds.assess(settled)).decided).toBe('approve');
  expect((await refunds.find(pending.id)).status).toBe(RefundStatus.Approved);
  expect((await refunds.find(settled.id)).status).toBe(RefundStatus.Rejected);
});

it('reviewers are notified once per record, however often its Review is announced', async () => {
  const escalated = await refund(ESCALATE);
  const { assessment, decided } = await refunds.assess(escalated);
  const record = (await records.latest(escalated, 'refund-abuse'))!;
  expect(record.isAwaitingReview()).toBe(true);
  expect(decided).toBeInstanceOf(AwaitingReview);
  const { outcome, reason } = decided as AwaitingReview;
  const again = new ReviewRequested(
    assessment.judgment,
    assessment,
    outcome,
    record,
    record.reviewRequestedAt!,
    reason,
  );
  await app.get(EventEmitter2).emitAsync(ReviewRequested.NAME, again);
  const notifications = app.get<Repository<ReviewNotification>>(getRepositoryToken(ReviewNotification));
  expect(await notifications.countBy({ recordId: record.id })).toBe(1);
});

it("a Resolution performs the reviewer's Action: the refund, ticket or post it names", async () => {
  const escalated = await refund(ESCALATE);
  await refunds.assess(escalated);
  const tickets = app.get(TicketsService);
  const ticket = await tickets.create({
    subject: 'Your office dog',
    body: 'What breed is it? [[department=none:0.85]]',
  });
  expect((await tickets.assess(ticket)).decided).toMatchObject({ outcome: 'triage', reason: { cause: 'band' } });
  const posts = app.get(PostsService);
  const post = await posts.create({ author: 'kev', body: 'You are clueless. [[harms.harassment=0.6]] [[p=0.1]]' });
  expect((await posts.assess(post)).decided).toMatchObject({ outcome: 'hold', reason: { cause: 'band' } });

  await records.resolve((await records.latest(escalated, 'refund-abuse'))!, 'reject', ALICE);
  await records.resolve((await records.latest(ticket, 'ticket-routing'))!, 'account', ALICE);
  await records.resolve((await records.latest(post, 'post-moderation'))!, 'publish', ALICE);

  expect((await refunds.find(escalated.id)).status).toBe(RefundStatus.Rejected);
  expect(await tickets.find(ticket.id)).toMatchObject({ status: 'routed', department: 'account' });
  expect((await posts.find(post.id)).status).toBe('published');
});
