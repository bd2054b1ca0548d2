import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type Assessment, type Decided, Judge } from 'nestjs-judgment';
import type { Repository } from 'typeorm';
import type { CreatePostDto } from './create-post.dto';
import type { ModerationOutcome } from './post-moderation.decision';
import { PostModeration } from './post-moderation.judgment';
import { Post } from './post.entity';

/** Community posts: create, moderate inline, or dispatch the moderation to the queue. */
@Injectable()
export class PostsService {
  constructor(
    @InjectRepository(Post) private readonly posts: Repository<Post>,
    private readonly judge: Judge,
  ) {}

  create(input: CreatePostDto): Promise<Post> {
    return this.posts.save(this.posts.create(input));
  }

  async find(id: number): Promise<Post> {
    const post = await this.posts.findOneBy({ id });
    if (!post) throw new NotFoundException(`Post #${id} does not exist.`);
    return post;
  }

  async assess(post: Post): Promise<{ assessment: Assessment<PostModeration>; decided: Decided<ModerationOutcome> }> {
    const assessment = await this.judge.assess(new PostModeration(post));
    return { assessment, decided: await assessment.outcome<ModerationOutcome>() };
  }

  dispatch(post: Post): Promise<string> {
    return this.judge.dispatch(new PostModeration(post));
  }
}
