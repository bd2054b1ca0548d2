import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentLoginController } from './agent-login.controller';
import { Agents } from './agents';
import { NotificationsController } from './notifications.controller';
import { ReviewNotification } from './review-notification.entity';
import { ReviewNotifier } from './review-notifier.listener';

/**
 * Who reviews (agents) and telling reviewers once per record. The ResolutionPolicy (AgentResolutionPolicy) is
 * named in JudgmentModule's options, which instantiates it with Agents from this module.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ReviewNotification])],
  controllers: [NotificationsController, AgentLoginController],
  providers: [Agents, ReviewNotifier],
  exports: [Agents],
})
export class ReviewModule {}
