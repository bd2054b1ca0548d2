import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { judgmentName, ReviewRequested } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import { ReviewNotification } from './review-notification.entity';

/**
 * Tells reviewers a record awaits them — once per record, whatever repeats the event (a queue retry, a re-decision):
 * the notification row has a unique record id and a second insert is ignored.
 */
@Injectable()
export class ReviewNotifier {
  constructor(@InjectRepository(ReviewNotification) private readonly notifications: Repository<ReviewNotification>) {}

  @OnEvent(ReviewRequested.NAME)
  async notify(event: ReviewRequested): Promise<void> {
    if (!event.record) return; // nothing to point a reviewer at without a record
    await this.notifications
      .createQueryBuilder()
      .insert()
      .values({
        recordId: event.record.id,
        judgment: judgmentName(event.judgment),
        outcome: String(event.outcome),
        subjectType: event.record.subjectType,
        subjectId: event.record.subjectId,
      })
      .orIgnore()
      .execute();
  }
}
