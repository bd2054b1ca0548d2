import { Inject, Injectable } from '@nestjs/common';
import { Assessment } from '../assessment/assessment';
import { Provenance } from '../assessment/provenance';
import { Unassessed } from '../assessment/unassessed';
import { checkEvidenceSize } from '../definition/evidence';
import { type Judgment, judgmentMetadata } from '../definition/judgment.decorator';
import { type EngineRequest, type EngineResponse, LIVE_LIMITS, type LimitMode } from '../engines/engine.interface';
import { EngineManager } from '../engines/engine.manager';
import { EngineCallInterrupted, EngineFailed, EngineRateLimitDeferred, InvalidJudgment } from '../errors';
import { AssessmentCompleted, AssessmentFailed } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { JudgmentLogger, describeError } from '../logging/judgment.logger';
import { RecordWriter } from '../persistence/record.writer';
import { Recorder } from '../recording/recorder';
import type { RecordLink } from '../recording/record-link';
import { AssessmentCache, type CachedAssessment } from '../cache/assessment.cache';
import { judgmentInstruments } from '../telemetry/judgment.metrics';
import { SpanKind, inSpan } from '../telemetry/judgment.tracing';
import { AnswerSource, type ChosenEngine } from './answer-source';
import { readAnswers } from './ask';
import { type DescribedAttempt, describeAttempt } from './attempt';
import { EvidencePathWarnings } from './evidence-paths';
import {
  type AssessResult,
  type Attempter,
  type AttemptOptions,
  type DispatchOptions,
  type DispatchStrategy,
  JUDGMENT_DISPATCH,
  type PaidAnswers,
  type RecordedAttempt,
} from './judge.types';

/** Everything prepared before the Engine is asked. */
interface Attempt extends DescribedAttempt {
  /** What the Engine is asked: the expanded Questions and the Evidence as the Judgment returned it. */
  readonly request: EngineRequest;
  readonly connection: string;
  readonly chosen: ChosenEngine;
  readonly cacheFor: number | null;
}

/**
 * Assesses Judgments: one Engine round per Judgment, every attempt recorded, failures never turned into Outcomes.
 * The class is the injection token, so tests can `overrideProvider(Judge)`.
 */
@Injectable()
export class Judge implements Attempter {
  private readonly throwOnFailure: boolean;
  private readonly evidencePaths: EvidencePathWarnings;
  private readonly maxEvidenceBytes: number;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    private readonly engines: EngineManager,
    private readonly answers: AnswerSource,
    private readonly rows: RecordWriter,
    private readonly attempts: Recorder,
    private readonly cache: AssessmentCache,
    private readonly events: JudgmentEventsPublisher,
    private readonly logger: JudgmentLogger,
    @Inject(JUDGMENT_DISPATCH) private readonly dispatcher: DispatchStrategy,
  ) {
    this.throwOnFailure = options.throwOnFailure;
    this.evidencePaths = new EvidencePathWarnings(options.strictEvidencePaths, logger);
    this.maxEvidenceBytes = options.maxEvidenceBytes;
  }

  /**
   * Asks the Engine every Question of the Judgment in one round, records the Assessment and announces it. An Engine
   * failure is recorded and announced, then thrown as EngineFailed (or returned as Unassessed with
   * `throwOnFailure: false`). If the Assessment cannot be recorded while recording is required, AssessmentNotRecorded
   * is thrown (carrying the paid answers) whatever throwOnFailure says.
   */
  async assess<J extends Judgment>(judgment: J): Promise<AssessResult<J>> {
    return (await this.attempt(judgment)).result as AssessResult<J>;
  }

  /**
   * `assess()`, also telling which record the attempt was written to (null when nothing was): what the queue's jobs
   * use to decide from the record.
   */
  async attempt<J extends Judgment>(judgment: J, options: AttemptOptions = {}): Promise<RecordedAttempt<J>> {
    const attempt = this.prepare(judgment, options.limits ?? LIVE_LIMITS);
    return inSpan('judgment.assess', { attributes: { 'judgment.name': attempt.name } }, async (span) => {
      const recorded = await this.attemptPrepared(judgment, attempt, options.paid);
      const status = recorded.result instanceof Unassessed ? 'unassessed' : 'assessed';
      span.setAttribute('judgment.status', status);
      if (recorded.record) span.setAttribute('judgment.record_id', recorded.record.id);
      return recorded;
    });
  }

  private async attemptPrepared<J extends Judgment>(
    judgment: J,
    attempt: Attempt,
    paid: PaidAnswers | undefined,
  ): Promise<RecordedAttempt<J>> {
    const cacheKey = attempt.cacheFor === null || attempt.chosen.scripted ? null : this.cacheKey(attempt);
    const link = this.attempts.link({ checksPurity: attempt.chosen.scripted });
    if (paid) {
      // Answers paid for in an earlier run whose recording failed: recorded now, the Engine is not asked again.
      const { engine, model, requestId, details, questionModels } = paid.provenance;
      const provenance = new Provenance(engine, model, requestId, details, questionModels);
      const assessment = Assessment.fromAnswers(judgment, attempt.questions, paid.answers, provenance, link);
      return this.answered(judgment, attempt, assessment, link, cacheKey);
    }
    if (cacheKey) {
      const hit = await this.cache.get(cacheKey);
      const usable = hit && !(hit.recordId === null && this.rows.persistence.enabled);
      judgmentInstruments().cacheLookups.add(1, {
        'judgment.name': attempt.name,
        'judgment.cache.result': usable ? 'hit' : 'miss',
      });
      if (usable) return this.fromCache(judgment, attempt, hit);
    }

    let response: unknown;
    let assessment: Assessment<J>;
    try {
      response = await this.askEngine(attempt);
      assessment = readAnswers(judgment, attempt.questions, response as EngineResponse, {
        recording: link,
        partial: attempt.chosen.scripted,
      });
    } catch (error) {
      // A queued job's call the rate limit refused: nothing was answered or paid; the job goes back to its queue.
      if (error instanceof EngineRateLimitDeferred) throw error;
      // A retry wait cancelled by the shutdown is no attempt: nothing more was sent, nothing is recorded.
      if (error instanceof EngineCallInterrupted) throw error;
      // Classified by where it came from, not its type: fetch reports an outage as TypeError, JSON.parse as SyntaxError.
      // Provenance is kept only when the Engine returned a response that the Judge itself rejected.
      const provenance = provenanceOf(response);
      return this.failed(judgment, attempt, EngineFailed.wrap(attempt.name, error), provenance);
    }
    return this.answered(judgment, attempt, assessment, link, cacheKey);
  }

  /** Records, announces, logs and caches an answered attempt. */
  private async answered<J extends Judgment>(
    judgment: J,
    attempt: Attempt,
    assessment: Assessment<J>,
    link: RecordLink,
    cacheKey: string | null,
  ): Promise<RecordedAttempt<J>> {
    const record = await this.recording(() => link.recordAnswered(attempt, assessment));
    judgmentInstruments().assessments.add(1, { 'judgment.name': attempt.name, 'judgment.status': 'assessed' });
    this.answers.assessed(assessment, link);
    await this.events.emit(new AssessmentCompleted(judgment, assessment, record));
    this.logger.info('Judgment assessed.', assessment.logContext());
    if (cacheKey) {
      await this.cache.put(
        cacheKey,
        {
          answers: assessment.encodedAnswers(),
          engine: assessment.provenance.engine,
          model: assessment.provenance.model,
          requestId: assessment.provenance.requestId,
          ...(Object.keys(assessment.provenance.questionModels).length === 0
            ? {}
            : { questionModels: assessment.provenance.questionModels }),
          recordId: record?.id ?? null,
        },
        attempt.cacheFor as number,
      );
    }
    return { result: assessment, record };
  }

  /**
   * Queues the Judgment: the worker assesses and records it, then (with a default Decision) a chained job decides
   * from the record. With the queue disabled the same work runs inline. Resolves to the job id.
   */
  dispatch(judgment: Judgment, options: DispatchOptions = {}): Promise<string> {
    this.answers.dispatching(judgment);
    return this.dispatcher.dispatch(judgment, options, this);
  }

  /** Input tokens this process consumed across connections (or on one). */
  usage(connection?: string): number {
    return this.engines.usage(connection);
  }

  /** The versioned model id that answered last (null before any answer). */
  lastModel(): string | null {
    return this.engines.lastModel();
  }

  /**
   * The Engine call in a CLIENT span named by the GenAI conventions (`chat <model>`), with the provider (the
   * connection), the models and the token usage; its duration, tokens and failures go to the metrics. Never the
   * Evidence, the Questions or the key.
   */
  private askEngine(attempt: Attempt): Promise<unknown> {
    const model = attempt.chosen.engine.model();
    const attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': attempt.connection,
      'gen_ai.system': attempt.connection,
      'gen_ai.request.model': model,
    };
    const instruments = judgmentInstruments();
    const started = performance.now();
    return inSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        const response = await attempt.chosen.engine.answer(attempt.request);
        const provenance = provenanceOf(response);
        if (provenance) {
          span.setAttribute('gen_ai.response.model', provenance.model);
          if (provenance.requestId) span.setAttribute('gen_ai.response.id', provenance.requestId);
          const usage = provenance.details.usage as { input_tokens?: unknown; output_tokens?: unknown } | null;
          for (const type of ['input', 'output'] as const) {
            const tokens = usage?.[`${type}_tokens`];
            if (typeof tokens !== 'number') continue;
            span.setAttribute(`gen_ai.usage.${type}_tokens`, tokens);
            instruments.tokens.record(tokens, { ...attributes, 'gen_ai.token.type': type });
          }
        }
        instruments.engineDuration.record((performance.now() - started) / 1000, attributes);
        return response;
      } catch (error) {
        const failure = error instanceof Error ? error.constructor.name : typeof error;
        instruments.engineDuration.record((performance.now() - started) / 1000, {
          ...attributes,
          'error.type': failure,
        });
        instruments.engineErrors.add(1, { ...attributes, 'error.type': failure });
        throw error;
      }
    });
  }

  /** Writing an attempt's record, in a span with the database conventions' attributes. */
  private recording<T>(write: () => Promise<T>): Promise<T> {
    if (!this.rows.persistence.enabled) return write();
    const attributes = () => this.rows.spanAttributes('INSERT');
    return inSpan('judgment.record', { kind: SpanKind.CLIENT, attributes }, write);
  }

  private prepare(judgment: Judgment, limits: LimitMode): Attempt {
    const described = describeAttempt(judgment);
    const metadata = judgmentMetadata(judgment.constructor);
    checkEvidenceSize(described.name, described.evidence, metadata.maxEvidenceBytes ?? this.maxEvidenceBytes);
    this.evidencePaths.check(described);
    const connection = judgment.engine?.() ?? metadata.engine ?? this.engines.defaultConnectionName();
    return {
      ...described,
      request: { questions: described.expanded, evidence: described.evidence.shown, limits },
      connection,
      chosen: this.answers.engineFor(judgment, connection),
      cacheFor: checkedCacheFor(described.name, judgment.cacheFor?.() ?? metadata.cacheFor ?? null),
    };
  }

  private cacheKey(attempt: Attempt): string {
    return this.cache.key({
      judgment: attempt.name,
      questionsFingerprint: attempt.questionsFingerprint,
      evidenceFingerprint: attempt.evidence.fingerprint,
      untrustedPaths: attempt.evidence.untrustedPaths,
      engineClass: this.engines.describe(attempt.connection).driver,
      connection: attempt.connection,
      model: attempt.chosen.engine.model(),
    });
  }

  private async fromCache<J extends Judgment>(
    judgment: J,
    attempt: Attempt,
    hit: CachedAssessment,
  ): Promise<RecordedAttempt<J>> {
    const provenance = new Provenance(hit.engine, hit.model, hit.requestId, {}, hit.questionModels ?? {});
    const link = this.attempts.link({ checksPurity: false });
    const assessment = Assessment.fromAnswers(judgment, attempt.questions, hit.answers, provenance, link);
    const record = await this.recording(() => link.recordAnswered(attempt, assessment, hit.recordId));
    judgmentInstruments().assessments.add(1, { 'judgment.name': attempt.name, 'judgment.status': 'cached' });
    this.answers.assessed(assessment, link);
    await this.events.emit(new AssessmentCompleted(judgment, assessment, record));
    this.logger.info('Judgment assessed from cache.', { ...assessment.logContext(), cached_from: hit.recordId });
    return { result: assessment, record };
  }

  private async failed<J extends Judgment>(
    judgment: J,
    attempt: Attempt,
    error: EngineFailed,
    provenance: Provenance | null,
  ): Promise<RecordedAttempt<J>> {
    const record = await this.recording(() => this.attempts.failed(attempt, error, provenance));
    judgmentInstruments().assessments.add(1, { 'judgment.name': attempt.name, 'judgment.status': 'unassessed' });
    await this.events.emit(new AssessmentFailed(judgment, error, record));
    this.logger.warn('Judgment unassessed.', {
      judgment: attempt.name,
      ...(provenance ? provenance.logContext() : {}),
      exception: describeError(error),
    });
    if (this.throwOnFailure) throw error;
    return { result: new Unassessed(judgment, error, record), record };
  }
}

/** A Judgment's `cacheFor()`: a finite number of seconds ≥ 0, or null; anything else would never expire. */
function checkedCacheFor(name: string, seconds: unknown): number | null {
  if (seconds === null || seconds === undefined) return null;
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) return seconds;
  throw new InvalidJudgment(
    `${name}.cacheFor() must return a finite number of seconds ≥ 0, or null for no caching; got ${String(seconds)}.`,
  );
}

/** The Provenance of what an Engine returned, when it returned something carrying one. */
function provenanceOf(response: unknown): Provenance | null {
  const provenance = (response as Partial<EngineResponse> | null | undefined)?.provenance;
  return provenance instanceof Provenance ? provenance : null;
}
