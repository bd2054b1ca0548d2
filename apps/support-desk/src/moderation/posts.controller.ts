import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
  UseFilters,
  UsePipes,
} from '@nestjs/common';
import { JudgmentHttpExceptionFilter, judgmentValidationPipe } from 'nestjs-judgment/http';
import { CreateOptionsQuery } from '../common/create-options.query';
import { judgedView } from '../common/judged';
import { CreatePostDto } from './create-post.dto';
import { PostsService } from './posts.service';

/** Community posts over HTTP. */
@Controller('posts')
@UseFilters(JudgmentHttpExceptionFilter)
@UsePipes(judgmentValidationPipe())
export class PostsController {
  constructor(private readonly posts: PostsService) {}

  /**
   * Creates the post and assesses it synchronously: the response carries the Outcome, and the Actions already ran.
   * With `?dispatch=true` the assessment is queued instead and the response carries the job id.
   */
  @Post()
  async create(@Body() input: CreatePostDto, @Query() options: CreateOptionsQuery) {
    const post = await this.posts.create(input);
    if (options.queued) {
      const jobId = await this.posts.dispatch(post);
      return { post: await this.posts.find(post.id), jobId };
    }
    const { assessment, decided } = await this.posts.assess(post);
    return { post: await this.posts.find(post.id), ...judgedView(assessment, decided) };
  }

  /** Queues (again) the assessment of an existing post, e.g. after an Unassessed attempt. */
  @Post(':id/dispatch')
  @HttpCode(202)
  async dispatch(@Param('id', ParseIntPipe) id: number) {
    const jobId = await this.posts.dispatch(await this.posts.find(id));
    return { post: await this.posts.find(id), jobId };
  }

  @Get(':id')
  async show(@Param('id', ParseIntPipe) id: number) {
    return { post: await this.posts.find(id) };
  }
}
