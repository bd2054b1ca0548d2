import { Controller, Get } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ReviewNotification } from './review-notification.entity';

/** The notifications reviewers received, newest first (one per record that entered Review). */
@Controller('notifications')
export class NotificationsController {
  constructor(@InjectRepository(ReviewNotification) private readonly notifications: Repository<ReviewNotification>) {}

  @Get()
  async list() {
    return { data: await this.notifications.find({ order: { id: 'DESC' }, take: 100 }) };
  }
}
