import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JudgmentModule } from 'nestjs-judgment';
import { PostActions } from './post-actions.listener';
import { PostModeration } from './post-moderation.judgment';
import { Post } from './post.entity';
import { PostsController } from './posts.controller';
import { PostsService } from './posts.service';

/** Post moderation: the PostModeration Judgment (a Likelihood Set of harms), its Decision, the API and Actions. */
@Module({
  imports: [TypeOrmModule.forFeature([Post]), JudgmentModule.forFeature([PostModeration])],
  controllers: [PostsController],
  providers: [PostsService, PostActions],
  exports: [PostsService],
})
export class ModerationModule {}
