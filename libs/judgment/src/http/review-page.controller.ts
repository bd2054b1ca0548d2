import {
  Body,
  Controller,
  Get,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
  UseGuards,
  UsePipes,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { decisionMetadata } from '../decision/decision.decorator';
import { decisionThresholds } from '../decision/thresholds';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { AssessmentRecords } from '../records/assessment-records.service';
import { JudgmentRegistry } from '../registry/judgment.registry';
import { CanViewRecordsGuard } from './can-view.guard';
import { CsrfGuard, CsrfTokens } from './csrf';
import { JUDGMENT_HTTP_OPTIONS } from './judgment-http.module-definition';
import type { JudgmentHttpOptions, JudgmentHttpRequest } from './judgment-http.options';
import { recordDetail, recordSummary } from '../records/record.view';
import { recordQuestions } from '../records/record-questions';
import type { EntityReference } from '../persistence/entity-reference';
import type { Reviewer } from '../persistence/reviewer';
import { InvalidClaim, InvalidResolution, InvalidReviewer, ResolutionForbidden, ReviewClaimConflict } from '../errors';
import { findRecord } from './record-lookup';
import { claimFilter, pageFilter, recordPage as pageOf } from './record-page';
import {
  AgreementStatsQuery,
  NextCaseQuery,
  RECORD_PAGE_DONE,
  RecordIdParams,
  ReviewPageForm,
  ReviewPageResolveForm,
  ReviewQueueQuery,
  ReviewRecordQuery,
} from './review.dto';
import { ReviewPageExceptionFilter, reviewPageBase } from './review-page.filter';
import { type RecordControls, type RecordNotice, recordPage } from './record-page.html';
import { PAGE_HEADERS } from './review-page.html';
import { queuePage } from './review-queue.html';
import { agreementStatsPage } from './agreement-stats.html';
import { ReviewSummaries } from './review-summaries';
import { QueueCounts } from './queue-counts';
import { optionalReviewer, requestReviewer } from './reviewer-from';
import { answerError } from './error-envelope';
import { DESK_KEYS_SCRIPT } from './desk-keys.script';
import { judgmentValidationPipe } from './validation';
import type { VotesView } from '../review/review-votes.service';

/**
 * The review page (`JudgmentHttpModule.forRoot({ ui: true })`): server-rendered HTML, no script. `GET /judgment/desk`
 * is the queue, `GET /judgment/desk/records/:id` a record with its claim, renew, release and resolve forms. The same
 * guards as the JSON API (canView, reviewerFrom, the ResolutionPolicy; all refuse by default); POSTs are CSRF-checked
 * (CsrfGuard); every error is a page with the envelope's code and message.
 */
@Controller('judgment/desk')
@UseFilters(ReviewPageExceptionFilter)
@UseGuards(CanViewRecordsGuard)
@UsePipes(judgmentValidationPipe())
export class JudgmentReviewPageController {
  constructor(
    @Inject(JUDGMENT_HTTP_OPTIONS) private readonly options: JudgmentHttpOptions,
    private readonly records: AssessmentRecords,
    private readonly registry: JudgmentRegistry,
    private readonly adapterHost: HttpAdapterHost,
    private readonly csrf: CsrfTokens,
    private readonly summaries: ReviewSummaries,
    private readonly counts: QueueCounts,
  ) {}

  /**
   * The queue: `?judgment=&reason=band|drift|collapse&claim=unclaimed|mine|others&sort=age|deadline|confidence&after=`,
   * paged by the last id of the previous page (no OFFSET), with the counts per Judgment.
   */
  @Get()
  async queue(@Query() query: ReviewQueueQuery, @Req() request: JudgmentHttpRequest, @Res() response: unknown) {
    const now = new Date();
    const records = await this.records.awaitingReview({
      ...pageFilter(query),
      sort: query.sort,
      reason: query.reason,
      ...(await claimFilter(query.claim, this.options, request)),
    });
    const { data, page } = pageOf(records, query, (record) => record);
    const [summaries, counts, reviewer] = await Promise.all([
      this.summaries.of(data),
      this.counts.get(),
      this.signedIn(request),
    ]);
    const html = queuePage({
      base: reviewPageBase(request),
      records: data.map((record) => ({ ...recordSummary(record), summary: summaries.get(record.id) as string })),
      judgment: query.judgment,
      claim: query.claim,
      reason: query.reason,
      sort: query.sort,
      counts,
      reviewer,
      now,
      after: query.after,
      limit: query.limit,
      nextAfter: page.nextAfter,
    });
    this.send(response, html);
  }

  /**
   * Agreement between reviewers (N-of-M Reviews): raw agreement and Cohen's kappa per Judgment and per reviewer pair,
   * with the count of pairs of votes each rests on; `?judgment=` limits it to one Judgment.
   */
  @Get('stats')
  async stats(@Query() query: AgreementStatsQuery, @Req() request: JudgmentHttpRequest, @Res() response: unknown) {
    const [agreement, reviewer] = await Promise.all([
      this.records.reviewerAgreement(query.judgment),
      this.signedIn(request),
    ]);
    const html = agreementStatsPage({ base: reviewPageBase(request), agreement, judgment: query.judgment, reviewer });
    this.send(response, html);
  }

  /** The keyboard path's static script (the record page works without it). */
  @Get('desk-keys.js')
  script(@Res() response: unknown) {
    const adapter = this.adapterHost.httpAdapter;
    adapter.setHeader(response, 'Content-Type', 'text/javascript; charset=utf-8');
    adapter.setHeader(response, 'X-Content-Type-Options', 'nosniff');
    adapter.setHeader(response, 'Cache-Control', 'no-cache');
    adapter.reply(response, DESK_KEYS_SCRIPT, 200);
  }

  /**
   * The next case in the queue after record `after` (`claim=unclaimed`: the next one nobody holds), by the keyset
   * cursor; the queue when none is left. `resolved` carries the case just resolved, confirmed on the next one.
   */
  @Get('next')
  async next(@Query() query: NextCaseQuery, @Req() request: JudgmentHttpRequest, @Res() response: unknown) {
    const base = reviewPageBase(request);
    const [next] = await this.records.awaitingReview({
      after: query.after,
      limit: 1,
      ...(query.claim === 'unclaimed' ? { unclaimed: true } : {}),
    });
    const resolved = query.resolved ? `?resolved=${query.resolved}` : '';
    if (next) return this.redirect(response, `${base}/records/${next.id}${resolved}`);
    this.redirect(response, query.resolved ? `${base}/records/${query.resolved}?done=resolved` : base);
  }

  /** One record, with what this reviewer may do with it now; `?done=` says what their last action did. */
  @Get('records/:id')
  async record(
    @Param() params: RecordIdParams,
    @Query() query: ReviewRecordQuery,
    @Req() request: JudgmentHttpRequest,
    @Res() response: unknown,
  ) {
    const record = await this.find(params.id);
    const notice = query.done
      ? doneNotice(query.done, record, request)
      : query.resolved
        ? await this.advancedNotice(query.resolved)
        : null;
    await this.render(request, response, record, notice);
  }

  @Post('records/:id/claim')
  @UseGuards(CsrfGuard)
  async claim(
    @Param() params: RecordIdParams,
    @Body() _form: ReviewPageForm,
    @Req() request: JudgmentHttpRequest,
    @Res() response: unknown,
  ) {
    await this.act(request, response, params.id, 'claimed', (reviewer) => this.records.claim(params.id, reviewer));
  }

  /** Extends the requesting reviewer's own claim by the default lease. */
  @Post('records/:id/renew')
  @UseGuards(CsrfGuard)
  async renew(
    @Param() params: RecordIdParams,
    @Body() _form: ReviewPageForm,
    @Req() request: JudgmentHttpRequest,
    @Res() response: unknown,
  ) {
    await this.act(request, response, params.id, 'renewed', (reviewer) => this.records.renew(params.id, reviewer));
  }

  @Post('records/:id/release')
  @UseGuards(CsrfGuard)
  async release(
    @Param() params: RecordIdParams,
    @Body() _form: ReviewPageForm,
    @Req() request: JudgmentHttpRequest,
    @Res() response: unknown,
  ) {
    await this.act(request, response, params.id, 'released', (reviewer) => this.records.release(params.id, reviewer));
  }

  /**
   * Resolves with the chosen Outcome, unless none was chosen or the case changed since the page showed it (`seen`):
   * then the case is shown again, as it is now, with what to do. Never a silent overwrite.
   */
  @Post('records/:id/resolve')
  @UseGuards(CsrfGuard)
  async resolve(
    @Param() params: RecordIdParams,
    @Body() form: ReviewPageResolveForm,
    @Req() request: JudgmentHttpRequest,
    @Res() response: unknown,
  ) {
    const reviewer = await requestReviewer(this.options, request);
    const record = await this.find(params.id);
    if (!form.resolution) {
      const text = 'Choose an Outcome before resolving: none was chosen, so nothing was saved.';
      return this.render(request, response, record, { kind: 'problem', text }, 400);
    }
    if (form.seen !== undefined && form.seen !== record.updatedAt.getTime() && !record.isResolved()) {
      const text =
        `Record #${record.id} changed since you opened it (updated at ${record.updatedAt.toISOString()}), so your ` +
        `Resolution ${JSON.stringify(form.resolution)} was not saved. This is the case as it is now: check it, then ` +
        'resolve again.';
      return this.render(request, response, record, { kind: 'problem', text }, 409);
    }
    await this.act(
      request,
      response,
      params.id,
      'resolved',
      () => this.records.resolve(record, form.resolution as string, reviewer),
      form.advance === '1'
        ? `${reviewPageBase(request)}/next?after=${params.id}&claim=unclaimed&resolved=${params.id}`
        : null,
    );
  }

  /** The confirmation of the case resolved before the one the keyboard path advanced to. */
  private async advancedNotice(id: number): Promise<RecordNotice | null> {
    const resolved = await this.records.find(id);
    if (!resolved?.isResolved()) return null;
    return {
      kind: 'done',
      text: `Record #${id} is resolved as ${JSON.stringify(resolved.resolution)}. This is the next unclaimed case.`,
    };
  }

  /**
   * Runs a reviewer's action, then redirects to the record with what it did (post, redirect, get). An action the
   * case refuses as it is now (claimed by someone else, resolved meanwhile, not theirs to renew) shows the fresh case
   * with the reason, under the refusal's status.
   */
  private async act(
    request: JudgmentHttpRequest,
    response: unknown,
    id: number,
    done: (typeof RECORD_PAGE_DONE)[number],
    work: (reviewer: Reviewer) => Promise<unknown>,
    then: string | null = null,
  ): Promise<void> {
    const reviewer = await requestReviewer(this.options, request);
    try {
      await work(reviewer);
    } catch (error) {
      if (!refusedByTheCase(error)) throw error;
      const { status, body } = answerError(error);
      const text = `${body.error.message} Nothing was changed; this is the case as it is now.`;
      return this.render(request, response, await this.find(id), { kind: 'problem', text }, status);
    }
    this.redirect(response, then ?? `${reviewPageBase(request)}/records/${id}?done=${done}`);
  }

  private async render(
    request: JudgmentHttpRequest,
    response: unknown,
    record: AssessmentRecord,
    notice: RecordNotice | null,
    status = 200,
  ): Promise<void> {
    const reviewer = await this.signedIn(request);
    const { token, setCookie } = await this.csrf.forPage(request);
    const now = new Date();
    const votes = await this.records.reviewVotes(record, reviewer);
    const adjudicator =
      votes?.needsAdjudication === true && reviewer !== null && (await this.records.mayAdjudicate(record, reviewer));
    const html = recordPage({
      base: reviewPageBase(request),
      record: recordDetail(record),
      csrf: token,
      ...this.decisionView(record),
      questions: recordQuestions(this.registry, record),
      reviewer,
      controls: controlsFor(record, reviewer, now, votes, adjudicator),
      votes,
      notice,
      seen: record.updatedAt.getTime(),
      now,
    });
    this.send(response, html, setCookie, status);
  }

  /** The reviewer the request speaks for, as recorded; null when it names none (the page is then read-only). */
  private async signedIn(request: JudgmentHttpRequest): Promise<EntityReference | null> {
    const reviewer = await optionalReviewer(this.options, request);
    if (reviewer === null) return null;
    try {
      return this.records.reviewerReference(reviewer);
    } catch (error) {
      if (error instanceof InvalidReviewer) return null;
      throw error;
    }
  }

  /** The Outcomes a person may resolve with and the Decision's thresholds (none when its Decision is unknown). */
  private decisionView(record: AssessmentRecord) {
    if (record.decision === null || !this.registry.hasDecision(record.decision)) {
      return { resolutions: [], thresholds: record.decisionThresholds };
    }
    const cls = this.registry.decision(record.decision);
    const metadata = decisionMetadata(cls);
    const decision = this.registry.decisionOf(cls);
    return {
      resolutions: metadata.outcomes.filter((o) => !metadata.review.has(o)).map(String),
      // The thresholds the case was decided with, else those the Decision declares now.
      thresholds: record.decisionThresholds ?? decisionThresholds(decision),
    };
  }

  private find(id: number): Promise<AssessmentRecord> {
    return findRecord(this.records, id);
  }

  private send(response: unknown, html: string, setCookie: string | null = null, status = 200): void {
    const adapter = this.adapterHost.httpAdapter;
    for (const [name, value] of Object.entries(PAGE_HEADERS)) adapter.setHeader(response, name, value);
    if (setCookie) adapter.setHeader(response, 'Set-Cookie', setCookie);
    adapter.reply(response, html, status);
  }

  private redirect(response: unknown, url: string): void {
    this.adapterHost.httpAdapter.redirect(response, 303, url);
  }
}

/** What the last action did, in words, on the page it redirected to. */
function doneNotice(
  done: (typeof RECORD_PAGE_DONE)[number],
  record: AssessmentRecord,
  request: JudgmentHttpRequest,
): RecordNotice {
  const until = record.claimExpiresAt
    ? ` until ${new Date(record.claimExpiresAt).toISOString().slice(11, 19)} UTC`
    : '';
  switch (done) {
    case 'claimed':
      return {
        kind: 'done',
        text: `You claimed record #${record.id}${until}. Resolve it, or release it for someone else.`,
      };
    case 'renewed':
      return { kind: 'done', text: `Your claim on record #${record.id} is renewed${until}.` };
    case 'released':
      return { kind: 'done', text: `You released record #${record.id}: anyone may claim it now.` };
    case 'resolved':
      return {
        kind: 'done',
        text: record.isResolved()
          ? `Record #${record.id} is resolved as ${JSON.stringify(record.resolution)}.`
          : `Your vote on record #${record.id} is recorded; the case is not resolved yet.`,
        link: { href: `${reviewPageBase(request)}?claim=unclaimed`, label: 'Next unclaimed case in the queue' },
      };
  }
}

/** The controls that apply to `reviewer` on `record` now (with N-of-M votes: voted, or adjudication by whom). */
function controlsFor(
  record: AssessmentRecord,
  reviewer: EntityReference | null,
  now: Date,
  votes: VotesView | null = null,
  adjudicator = false,
): RecordControls {
  if (!record.isAwaitingReview()) return { kind: 'closed' };
  if (votes?.needsAdjudication && !adjudicator) return { kind: 'awaits-adjudication' };
  if (votes && !votes.needsAdjudication && votes.voted) {
    const own = votes.votes?.find((vote) => vote.reviewer.type === reviewer?.type && vote.reviewer.id === reviewer?.id);
    return { kind: 'voted', outcome: own?.outcome ?? '', waiting: votes.required - votes.cast };
  }
  const claim = record.liveClaim(now);
  if (claim && (reviewer === null || claim.holder.type !== reviewer.type || claim.holder.id !== reviewer.id)) {
    return { kind: 'theirs', holder: claim.holder, expiresAt: claim.expiresAt.toISOString() };
  }
  if (reviewer === null) return { kind: 'no-reviewer' };
  return claim ? { kind: 'mine', expiresAt: claim.expiresAt.toISOString() } : { kind: 'unclaimed' };
}

/** Refusals that come from the case as it is now (shown with the fresh case), not from the request or the app. */
function refusedByTheCase(error: unknown): boolean {
  return (
    error instanceof ReviewClaimConflict ||
    error instanceof InvalidClaim ||
    error instanceof ResolutionForbidden ||
    (error instanceof InvalidResolution && !(error instanceof InvalidReviewer))
  );
}
