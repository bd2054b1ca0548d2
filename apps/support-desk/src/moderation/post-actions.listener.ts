import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { AssessmentDecided, judgmentName, ReviewRequested, ReviewResolved } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import { transition } from '../common/transition';
import { ModerationOutcome } from './post-moderation.decision';
import { PostModeration } from './post-moderation.judgment';
import { Post, PostStatus } from './post.entity';

const STATUS_OF: Partial<Record<ModerationOutcome, PostStatus>> = {
  [ModerationOutcome.Publish]: PostStatus.Published,
  [ModerationOutcome.Remove]: PostStatus.Removed,
};

/** Publishes or removes posts, once: only a post still pending (or held, for a Resolution) changes. */
@Injectable()
export class PostActions {
  private readonly logger = new Logger('SupportDesk');

  constructor(@InjectRepository(Post) private readonly posts: Repository<Post>) {}

  @OnEvent(AssessmentDecided.NAME)
  async decided(event: AssessmentDecided): Promise<void> {
    if (!(event.judgment instanceof PostModeration)) return;
    if (event.awaitsReview) return; // held: the moderator's Resolution settles it
    await this.settle(event.judgment.post.id, event.outcome, [PostStatus.Pending]);
  }

  @OnEvent(ReviewRequested.NAME)
  async reviewRequested(event: ReviewRequested): Promise<void> {
    if (!(event.judgment instanceof PostModeration)) return;
    await transition(this.posts, event.judgment.post.id, [PostStatus.Pending], PostStatus.Held);
  }

  @OnEvent(ReviewResolved.NAME)
  async resolved(event: ReviewResolved): Promise<void> {
    if (event.record.judgment !== judgmentName(PostModeration) || event.record.subjectId === null) return;
    await this.settle(Number(event.record.subjectId), event.resolution, [PostStatus.Pending, PostStatus.Held]);
  }

  private async settle(id: number, outcome: unknown, from: PostStatus[]): Promise<void> {
    const to = STATUS_OF[outcome as ModerationOutcome];
    if (to && (await transition(this.posts, id, from, to))) this.logger.log(`Post #${id} ${to}.`);
  }
}
