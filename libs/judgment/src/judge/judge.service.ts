import { Inject, Injectable } from '@nestjs/common';
import { Assessment, type EncodedAnswers } from '../assessment/assessment';
import { Provenance } from '../assessment/provenance';
import { Unassessed } from '../assessment/unassessed';
import { checkEvidenceSize } from '../definition/evidence';
import { type Judgment, judgmentMetadata } from '../definition/judgment.decorator';
import {
  type Engine,
  type EngineAnswer,
  type EngineRequest,
  type EngineResponse,
  LIVE_LIMITS,
  type LimitMode,
} from '../engines/engine.interface';
import { EngineManager } from '../engines/engine.manager';
import {
  NOTHING_PAID,
  type PaidRound,
  type RoundCost,
  addPaid,
  paidForFailure,
  paidUsage,
  roundCost,
} from '../engines/pricing/round-cost';
import { EngineCallInterrupted, EngineFailed, EngineRateLimitDeferred, InvalidJudgment } from '../errors';
import { AssessmentCompleted, AssessmentDispatched, AssessmentFailed } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { JudgmentLogger, describeError } from '../logging/judgment.logger';
import { recordProvenance } from '../persistence/record-provenance';
import { RecordWriter } from '../persistence/record.writer';
import { Recorder } from '../recording/recorder';
import type { LinkCascade } from '../recording/record-link';
import type { Decided } from '../assessment/awaiting-review';
import type { Decision } from '../decision/decision.decorator';
import type { CascadeStep, CascadeTier } from '../definition/cascade';
import type { Outcome } from '../definition/outcome';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { SignalGuard } from '../signal/signal.guard';
import type { RecordLink } from '../recording/record-link';
import { AssessmentCache, type CachedAssessment } from '../cache/assessment.cache';
import { judgmentInstruments } from '../telemetry/judgment.metrics';
import { SpanKind, inSpan } from '../telemetry/judgment.tracing';
import { AnswerSource } from './answer-source';
import { readAnswers } from './ask';
import { type DescribedAttempt, describeAttempt } from './attempt';
import { EvidencePathWarnings } from './evidence-paths';
import {
  PartialRounds,
  askedAnswers,
  declaredAnswers,
  paidProvenance,
  plainPaidAnswers,
  unansweredQuestions,
  withReused,
} from './paid-answers';
import {
  type AssessResult,
  type Attempter,
  type AttemptOptions,
  type DispatchOptions,
  type DispatchStrategy,
  JUDGMENT_DISPATCH,
  type PaidAnswers,
  type RecordedAttempt,
  type TierChoice,
  paidAnswersOf,
} from './judge.types';

/** Everything prepared before the Engine is asked. */
interface Attempt extends DescribedAttempt {
  /** What the Engine is asked: the expanded Questions and the Evidence as the Judgment returned it. */
  readonly request: EngineRequest;
  readonly connection: string;
  /** The Engine the AnswerSource gave for this attempt. */
  readonly engine: Engine;
  readonly cacheFor: number | null;
  /** Where the attempt stands in the Judgment's escalation cascade, or null without one. */
  readonly cascade: CascadeStep | null;
  readonly limits: LimitMode;
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
  /** Answers of rounds that failed part way, for a retry of the same Judgment in this process. */
  private readonly partials = new PartialRounds();

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
    private readonly signal: SignalGuard,
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
   * use to decide from the record. `options.job` is the queued assess job's: its id goes on the records, and a re-run
   * of the job goes on from the answered record an earlier run wrote, if any.
   */
  async attempt<J extends Judgment>(judgment: J, options: AttemptOptions = {}): Promise<RecordedAttempt<J>> {
    const { job } = options;
    const attempt = this.prepare(judgment, options.limits ?? LIVE_LIMITS, options.tier ?? FIRST_TIER, job?.id);
    return inSpan('judgment.assess', { attributes: { 'judgment.name': attempt.name } }, async (span) => {
      const recorded =
        (job?.rerun ? await this.resumed(judgment, attempt) : null) ??
        (await this.attemptPrepared(judgment, attempt, options.paid));
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
    // The attempt's key (what the cache and the kept partial rounds file it under), computed only when needed.
    let key: string | undefined;
    const keyOf = () => (scripted(attempt) ? null : (key ??= this.cacheKey(attempt)));
    const cacheKey = attempt.cacheFor === null ? null : keyOf();
    const link = this.linkFor(judgment, attempt, scripted(attempt));
    // Answers of a round of this Judgment that failed part way (kept here, or in a queued job's progress).
    const kept = !paid && !this.partials.empty ? keyOf() : null;
    const earlier = paid ?? (kept ? this.partials.take(kept) : undefined);
    const given = earlier ? askedAnswers(attempt.questions, earlier.answers) : {};
    const request = earlier
      ? { ...attempt.request, questions: unansweredQuestions(attempt.expanded, given) }
      : attempt.request;
    if (earlier && request.questions.size === 0) {
      // Every answer was paid for in an earlier run whose recording failed: recorded now, the Engine is not asked.
      const answers = declaredAnswers(attempt.questions, given);
      const assessment = Assessment.fromAnswers(judgment, attempt.questions, answers, paidProvenance(earlier), link);
      const costed = { ...attempt, cost: this.recordCost(attempt, NOTHING_PAID, earlier) };
      return this.answered(judgment, costed, assessment, link, cacheKey);
    }
    if (cacheKey && !earlier) {
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
    let paidNow: PaidRound = NOTHING_PAID;
    try {
      response = await this.askEngine(attempt, request);
      paidNow = this.paidRound(attempt, paidUsage(provenanceOf(response)?.details.usage));
      const merged = earlier ? withEarlier(response, given, earlier) : response;
      assessment = readAnswers(judgment, attempt.questions, merged as EngineResponse, {
        recording: link,
        partial: scripted(attempt),
      });
    } catch (error) {
      const interrupted = error instanceof EngineRateLimitDeferred || error instanceof EngineCallInterrupted;
      // What a round that returned nothing paid for, on the cost metric now (a response the Judge refused was
      // counted when it came back).
      if (response === undefined) paidNow = this.paidRound(attempt, paidForFailure(error));
      const rejected = provenanceOf(response);
      // Not an attempt (a queued job's call the rate limit refused, a retry wait the shutdown cancelled): the answers
      // of before stay for the next one.
      if (interrupted && earlier && kept) this.partials.keep(kept, earlier);
      if (interrupted) throw error;
      // Classified by where it came from, not its type: fetch reports an outage as TypeError, JSON.parse as SyntaxError.
      // Provenance is kept only when the Engine returned a response that the Judge itself rejected.
      const failure = EngineFailed.wrap(attempt.name, error);
      const costed = { ...attempt, cost: this.recordCost(attempt, paidNow, earlier) };
      return this.failed(judgment, costed, failure, rejected, {
        earlier: earlier ?? null,
        given,
        key: keyOf,
      });
    }
    // A fresh round of a real Engine (not a cache hit, not scripted answers): the signal-collapse guard watches it.
    if (!scripted(attempt)) await this.signal.observe(assessment);
    const costed = { ...attempt, cost: this.recordCost(attempt, paidNow, earlier) };
    return this.answered(judgment, costed, assessment, link, cacheKey);
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
    return this.announced(judgment, attempt, { assessment, record }, cacheKey, [
      'Judgment assessed.',
      assessment.logContext(),
    ]);
  }

  /**
   * The answered record an earlier run of the attempt's queued job wrote (its worker died, or the job was retried or
   * given back, after the INSERT), announced again as that run did or would have: no Engine is asked (nor resolved,
   * so a fake Judge's script is not spent) and no second record is written. The cache is not filled again: a
   * lifetime counted from now would outlive the answer's. Null when no run of the job recorded an answer to these
   * Questions (or nothing is recorded); with best-effort persistence a look-up that fails is logged and the Judgment
   * is assessed anew.
   */
  private async resumed<J extends Judgment>(judgment: J, attempt: Attempt): Promise<RecordedAttempt<J> | null> {
    if (!attempt.job || !this.rows.persistence.enabled) return null;
    let record: AssessmentRecord | null;
    try {
      record = await this.rows.answeredBy(attempt.job);
    } catch (error) {
      if (this.rows.persistence.required) throw error;
      this.logger.warn('Judgment job record not looked up.', {
        judgment: attempt.name,
        job: attempt.job,
        exception: describeError(error as Error),
      });
      return null;
    }
    const provenance = record && recordProvenance(record);
    if (!record || !provenance || record.questionsFingerprint !== attempt.questionsFingerprint) return null;
    // The first run's link (its cascade place, asking the next tier inline), on the record; no purity check, which
    // would resolve the Engine to tell scripted answers.
    const link = this.linkFor(judgment, attempt, false, record);
    const answers = record.answers as EncodedAnswers;
    const assessment = Assessment.fromAnswers(judgment, attempt.questions, answers, provenance, link);
    return this.announced(judgment, attempt, { assessment, record }, null, [
      'Judgment assessed in an earlier run of its job.',
      { ...assessment.logContext(), record: record.id },
    ]);
  }

  /** Announces (AssessmentCompleted, then the log line) and caches an answered attempt, once it is recorded. */
  private async announced<J extends Judgment>(
    judgment: J,
    attempt: Attempt,
    { assessment, record }: { assessment: Assessment<J>; record: AssessmentRecord | null },
    cacheKey: string | null,
    [message, context]: [string, Record<string, unknown>],
  ): Promise<RecordedAttempt<J>> {
    await this.events.emit(new AssessmentCompleted(judgment, assessment, record));
    this.logger.info(message, context);
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
   * from the record. With the queue disabled the same work runs inline. Resolves to the job id, once
   * AssessmentDispatched is announced.
   */
  async dispatch(judgment: Judgment, options: DispatchOptions = {}): Promise<string> {
    const jobId = await this.dispatcher.dispatch(judgment, options, this);
    await this.events.emit(new AssessmentDispatched(judgment, jobId));
    return jobId;
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
  private askEngine(attempt: Attempt, request: EngineRequest): Promise<unknown> {
    const model = attempt.engine.model();
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
        const response = await attempt.engine.answer(request);
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

  /**
   * What a round asked now paid for, its cost added to the `judgment.cost` metric (by Judgment, connection and
   * currency) once, when it is known: whether or not the round is recorded, and never again on a retry.
   */
  private paidRound(attempt: Attempt, paid: PaidRound): PaidRound {
    if (scripted(attempt)) return paid;
    const cost = roundCost(attempt.connection, this.engines.price(attempt.connection), paid);
    if (cost.amount !== null) {
      judgmentInstruments().cost.add(cost.amount, {
        'judgment.name': attempt.name,
        'judgment.connection': attempt.connection,
        'judgment.currency': cost.currency as string,
      });
    }
    return paid;
  }

  /**
   * The cost the attempt's record holds: what its own round paid for, and what a round of `earlier` answers paid for
   * when no record holds it (its write failed, so the answers were kept to record now); answers reused from an
   * earlier record are that record's cost, not this one's. Scripted answers (Engine.scripted) have none.
   */
  private recordCost(
    attempt: Attempt,
    paidNow: PaidRound,
    earlier: PaidAnswers | undefined,
    note: string | null = null,
  ): RoundCost {
    if (scripted(attempt)) {
      return {
        amount: null,
        currency: null,
        basis: {
          connection: attempt.connection,
          inputTokens: null,
          outputTokens: null,
          requests: null,
          price: null,
          note: 'Scripted answers (answers written in advance): nothing was asked or paid for.',
        },
      };
    }
    const unrecorded = earlier !== undefined && (earlier.record ?? null) === null;
    const paid = unrecorded ? addPaid(paidNow, paidUsage(earlier.provenance.details.usage)) : paidNow;
    const why = unrecorded
      ? 'Includes the round of earlier answers, recorded here because their own record was not written.'
      : earlier
        ? `Answers reused from record #${earlier.record} are that record's cost.`
        : note;
    return roundCost(attempt.connection, this.engines.price(attempt.connection), paid, why);
  }

  /** Writing an attempt's record, in a span with the database conventions' attributes. */
  private recording<T>(write: () => Promise<T>): Promise<T> {
    if (!this.rows.persistence.enabled) return write();
    const attributes = () => this.rows.spanAttributes('INSERT');
    return inSpan('judgment.record', { kind: SpanKind.CLIENT, attributes }, write);
  }

  private prepare(judgment: Judgment, limits: LimitMode, tier: TierChoice = FIRST_TIER, job?: string): Attempt {
    const described = describeAttempt(judgment);
    const metadata = judgmentMetadata(judgment.constructor);
    checkEvidenceSize(described.name, described.evidence, metadata.maxEvidenceBytes ?? this.maxEvidenceBytes);
    this.evidencePaths.check(described);
    // What the record cannot hold is refused now, not after the Engine was paid for an answer it cannot record.
    const subject = this.rows.checkedSubject(described);
    const cascade = metadata.cascade ? cascadeStep(described.name, judgment, metadata.cascade, tier) : null;
    const connection =
      cascade?.connection ?? judgment.engine?.() ?? metadata.engine ?? this.engines.defaultConnectionName();
    const { answers } = this;
    let engine: Engine | undefined;
    return {
      ...described,
      subject,
      request: { questions: described.expanded, evidence: described.evidence.shown, limits },
      connection,
      // Resolved when first needed (before anything is looked up or asked): a queued job's re-run that goes on from
      // its record needs none.
      get engine() {
        return (engine ??= answers.engineFor(judgment, connection));
      },
      cacheFor: checkedCacheFor(described.name, judgment.cacheFor?.() ?? metadata.cacheFor ?? null),
      cascade,
      limits,
      job: job ?? null,
    };
  }

  /** The link an attempt's Assessment is made with: with its place in the cascade and a way to ask the next tier. */
  private linkFor(
    judgment: Judgment,
    attempt: Attempt,
    checksPurity: boolean,
    /** The record an earlier run of the attempt's queued job wrote, when going on from it. */
    record?: AssessmentRecord,
  ): RecordLink {
    const metadata = judgmentMetadata(judgment.constructor);
    if (!attempt.cascade || !metadata.cascade || !metadata.decision)
      return this.attempts.link({ checksPurity, record });
    const cascade: LinkCascade = {
      step: attempt.cascade,
      tiers: metadata.cascade,
      decision: metadata.decision,
      escalate: (decision, from) => this.escalate(judgment, attempt, decision, from),
    };
    return this.attempts.link({ checksPurity, cascade, record });
  }

  /**
   * Asks the cascade's next tier about the Judgment an earlier tier decided in its Review band, records that attempt
   * (noting the record it escalated from) and decides it with the same Decision through its own link. Resolves to
   * null when the tier could not answer and its failure is not thrown. Whatever it throws, the earlier tier's answers
   * are kept for a retry of the same Judgment in this process, so that tier is not paid again.
   */
  private async escalate(
    judgment: Judgment,
    from: Attempt,
    decision: Decision,
    earlier: { assessment: Assessment<any>; record: AssessmentRecord | null },
  ): Promise<Decided<Outcome> | null> {
    const step = from.cascade as CascadeStep;
    try {
      const next = this.prepare(judgment, from.limits, { index: step.tier, escalatedFrom: earlier.record?.id ?? null });
      const attributes = { 'judgment.name': next.name, 'judgment.cascade.tier': step.tier + 1 };
      const recorded = await inSpan('judgment.assess', { attributes }, () =>
        this.attemptPrepared(judgment, next, undefined),
      );
      if (recorded.result instanceof Unassessed) return null;
      return await recorded.result.decide(decision);
    } catch (error) {
      if (!scripted(from)) {
        const paid = { ...paidAnswersOf(earlier.assessment), record: earlier.record?.id ?? null };
        this.partials.keep(this.cacheKey(from), paid);
      }
      throw error;
    }
  }

  private cacheKey(attempt: Attempt): string {
    return this.cache.key({
      judgment: attempt.name,
      questionsFingerprint: attempt.questionsFingerprint,
      evidenceFingerprint: attempt.evidence.fingerprint,
      untrustedPaths: attempt.evidence.untrustedPaths,
      engineClass: this.engines.describe(attempt.connection).driver,
      connection: attempt.connection,
      model: attempt.engine.model(),
    });
  }

  private async fromCache<J extends Judgment>(
    judgment: J,
    attempt: Attempt,
    hit: CachedAssessment,
  ): Promise<RecordedAttempt<J>> {
    const provenance = new Provenance(hit.engine, hit.model, hit.requestId, {}, hit.questionModels ?? {});
    const link = this.linkFor(judgment, attempt, false);
    const assessment = Assessment.fromAnswers(judgment, attempt.questions, hit.answers, provenance, link);
    const cost = this.recordCost(attempt, NOTHING_PAID, undefined, 'Answered from the cache: nothing was asked.');
    const record = await this.recording(() => link.recordAnswered({ ...attempt, cost }, assessment, hit.recordId));
    judgmentInstruments().assessments.add(1, { 'judgment.name': attempt.name, 'judgment.status': 'cached' });
    return this.announced(judgment, attempt, { assessment, record }, null, [
      'Judgment assessed from cache.',
      { ...assessment.logContext(), cached_from: hit.recordId },
    ]);
  }

  private async failed<J extends Judgment>(
    judgment: J,
    attempt: Attempt,
    error: EngineFailed,
    rejected: Provenance | null,
    paidSoFar: { earlier: PaidAnswers | null; given: Record<string, EngineAnswer>; key: () => string | null },
  ): Promise<RecordedAttempt<J>> {
    // Every answer of this Judgment paid for so far: an earlier round's, and this round's before it failed.
    const part = error.answered;
    const answers = { ...paidSoFar.given, ...(part?.answers ?? {}) };
    const { earlier } = paidSoFar;
    const provenance = part
      ? earlier
        ? withReused(paidProvenance(part), earlier, Object.keys(paidSoFar.given), Object.keys(part.answers))
        : paidProvenance(part)
      : earlier
        ? paidProvenance(earlier)
        : null;
    const paid = provenance && Object.keys(answers).length > 0 ? { answers, provenance } : null;
    const recorded = rejected ?? provenance;
    const record = await this.recording(() =>
      this.attempts.failed(attempt, error, recorded, paid ? declaredAnswers(attempt.questions, answers) : null),
    );
    if (paid) {
      // A retry of the same Judgment asks only the other Questions: here, or from a queued job's progress. When no
      // record holds this round, its answers carry what it paid for, for the record that holds them later.
      const carried = record === null ? carryingCost(paid.provenance, attempt.cost) : paid.provenance;
      error.answered = { ...paid, provenance: carried, record: record?.id ?? null };
      const key = paidSoFar.key();
      if (key) this.partials.keep(key, plainPaidAnswers(error.answered));
    }
    judgmentInstruments().assessments.add(1, { 'judgment.name': attempt.name, 'judgment.status': 'unassessed' });
    await this.events.emit(new AssessmentFailed(judgment, error, record));
    this.logger.warn('Judgment unassessed.', {
      judgment: attempt.name,
      ...(recorded ? recorded.logContext() : {}),
      exception: describeError(error),
    });
    if (this.throwOnFailure) throw error;
    return { result: new Unassessed(judgment, error, record), record };
  }
}

const FIRST_TIER: TierChoice = { index: 0, escalatedFrom: null };

/**
 * Whether the attempt's Engine answers from a script (Engine.scripted): its round may leave Questions unanswered, is
 * never cached, costs nothing, is not watched for signal collapse, and its Decisions run twice to check purity.
 */
function scripted(attempt: Attempt): boolean {
  return attempt.engine.scripted === true;
}

/** The attempt's place in the Judgment's cascade; a Judgment with a cascade may not name its connection itself. */
function cascadeStep(name: string, judgment: Judgment, tiers: readonly CascadeTier[], tier: TierChoice): CascadeStep {
  const own = judgment.engine?.();
  if (own !== null && own !== undefined) {
    throw new InvalidJudgment(
      `${name}.engine() returned ${JSON.stringify(own)}, but ${name} declares an escalation cascade, whose first ` +
        "tier's connection is asked first: remove engine(), or the cascade.",
    );
  }
  return {
    tier: tier.index + 1,
    of: tiers.length,
    connection: tiers[tier.index].connection,
    escalatedFrom: tier.escalatedFrom,
  };
}

/** A Judgment's `cacheFor()`: a finite number of seconds ≥ 0, or null; anything else would never expire. */
function checkedCacheFor(name: string, seconds: unknown): number | null {
  if (seconds === null || seconds === undefined) return null;
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) return seconds;
  throw new InvalidJudgment(
    `${name}.cacheFor() must return a finite number of seconds ≥ 0, or null for no caching; got ${String(seconds)}.`,
  );
}

/**
 * `provenance` with `details.usage` set to what a round that no record holds paid for (its cost's counts: the answers
 * read, the answers refused and an earlier unrecorded round), so the record that holds its answers later holds that
 * cost too. Unchanged when the payment is not known.
 */
function carryingCost(provenance: Provenance, cost: RoundCost | null | undefined): Provenance {
  const basis = cost?.basis;
  if (!basis || basis.requests === null) return provenance;
  const usage = {
    ...(basis.inputTokens === null ? {} : { input_tokens: basis.inputTokens }),
    ...(basis.outputTokens === null ? {} : { output_tokens: basis.outputTokens }),
    requests: basis.requests,
  };
  const { engine, model, requestId, details, questionModels } = provenance;
  return new Provenance(engine, model, requestId, { ...details, usage }, questionModels);
}

/** The Provenance of what an Engine returned, when it returned something carrying one. */
function provenanceOf(response: unknown): Provenance | null {
  const provenance = (response as Partial<EngineResponse> | null | undefined)?.provenance;
  return provenance instanceof Provenance ? provenance : null;
}

/** A response to the Questions earlier answers left, with those answers added and noted in its Provenance. */
function withEarlier(response: unknown, given: Record<string, EngineAnswer>, earlier: PaidAnswers): unknown {
  const { answers, provenance } = (response ?? {}) as Partial<EngineResponse>;
  // Not a response: read as it is, so the Judge refuses it as it would any other.
  if (answers === null || typeof answers !== 'object' || !(provenance instanceof Provenance)) return response;
  const merged = withReused(provenance, earlier, Object.keys(given), Object.keys(answers));
  return { answers: { ...given, ...answers }, provenance: merged };
}
