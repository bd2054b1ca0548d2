import { Inject, Injectable, type Type } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Assessment } from '../assessment/assessment';
import { decidedOutcome } from '../assessment/awaiting-review';
import { type Decision, type DecisionMetadata, decisionMetadata, isDecision } from '../decision/decision.decorator';
import { type Judgment, type JudgmentClass, judgmentMetadata, judgmentName } from '../definition/judgment.decorator';
import type { Outcome } from '../definition/outcome';
import { JudgmentRegistry, isJudgmentClass } from '../registry/judgment.registry';
import { BULK_LIMITS, type Engine } from '../engines/engine.interface';
import { EngineManager } from '../engines/engine.manager';
import { EngineFailed, InvalidCalibration, InvalidSuggestion, NoDefaultDecision } from '../errors';
import { type Thresholds, decisionThresholds, withThresholds } from '../decision/thresholds';
import type { CascadeTier } from '../definition/cascade';
import { checkEvidenceSize, prepareEvidence } from '../definition/evidence';
import { fingerprint } from '../fingerprint/fingerprint';
import { ask } from '../judge/ask';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { RecordWriter } from '../persistence/record.writer';
import { type QuestionMap, readQuestions } from '../questions/question';
import { questionsFingerprint } from '../questions/questions-fingerprint';
import { mapBounded } from './bounded';
import type { CalibrationIdentity, CalibrationReport, CascadeTierContext } from './calibration.report';
import {
  type SuggestOptions,
  type SuggestionCase,
  candidateGrid,
  checkSuggestOptions,
  declaredBands,
  suggestThresholds,
} from './threshold-suggestion';
import { DEFAULT_CASCADE_GRID_STEP } from './cascade-suggestion';
import { CalibrationSuggestion } from './calibration-suggestion';
import {
  type CascadeThresholdSuggestion,
  type CascadeTierAnswers,
  suggestCascadeThresholds,
} from './cascade-calibration';
import { CalibrationTally, likelihoodKeys, measuresOf } from './calibration.tally';
import { type LoadedCases, datasetCases, resolutionCases } from './case-sources';
import { LabelledCase } from './labelled-case';
import { describeValue } from './describe-value';
import { fitTemperatures } from './temperature-fit';
import { recordedTraffic } from './recorded-traffic';
import { type ResolutionTemperatures, resolutionTemperatures } from './resolution-temperatures';
import { answerSignals } from '../lock/signal-figures';

/** Cases in flight when neither `.concurrency()` nor the module option `calibration.concurrency` says otherwise. */
export { DEFAULT_CALIBRATION_CONCURRENCY } from '../judgment.defaults';

/** Options of `run()`. */
export interface CalibrationRunOptions {
  /** Called after each Engine round with the rounds done and the total (connections × cases). */
  onProgress?(done: number, total: number): void;
  /** Called once the cases are loaded and checked, before any Engine is asked: the rounds per connection. */
  onStart?(rounds: ReadonlyMap<string, number>): void;
}

/** Where the labelled cases come from. */
type CaseSource<J extends Judgment> =
  | { readonly kind: 'resolutions' }
  | { readonly kind: 'dataset'; readonly path: string }
  | { readonly kind: 'cases'; readonly cases: readonly LabelledCase<J>[] };

/** Everything a builder has been told. */
interface CalibrationPlan<J extends Judgment> {
  readonly judgment: JudgmentClass<J>;
  readonly source: CaseSource<J>;
  readonly engines: readonly string[] | null;
  readonly decisions: readonly Type<Decision>[] | null;
  readonly concurrency: number;
  readonly subject: Type<object> | null;
  /** Fit a temperature per connection and model to the Likelihood truths (logprob drivers record the masses). */
  readonly fitTemperature: boolean;
}

/** The services a run uses. */
interface CalibrationServices {
  readonly engines: EngineManager;
  readonly registry: JudgmentRegistry;
  /** The module's Evidence size limit of a round (`maxEvidenceBytes`). */
  readonly maxEvidenceBytes: number;
  dataSource(): DataSource | null;
}

/** One case, checked and ready to ask. */
interface PreparedCase<J extends Judgment> {
  /** The case's position in the source, for messages. */
  readonly index: number;
  readonly labelled: LabelledCase<J>;
  readonly questions: QuestionMap;
  readonly fingerprint: string;
}

/** An answered case and the Outcome of each Decision, in the order of the Decisions. */
interface AnsweredCase<J extends Judgment> {
  readonly assessment: Assessment<J>;
  readonly outcomes: readonly Outcome[];
}

/** One answered (or failed) case of a measured run, ready for a suggestion. */
interface MeasuredAnswer<J extends Judgment> {
  readonly answered: AnsweredCase<J> | EngineFailed;
  /** The identity the case files under for a Decision. */
  identity(decision: ResolvedDecision): CalibrationIdentity;
  /** The expected Outcome, as each Decision's own value. */
  readonly expected: readonly Outcome[];
}

/** What a measured run gives: the report, the Decisions, and each case's answers. */
interface Measured<J extends Judgment> {
  readonly report: CalibrationReport;
  readonly decisions: readonly ResolvedDecision[];
  /** Per connection asked (per tier of a cascade), then per case: `answers[connection × cases + case]`. */
  readonly answers: readonly MeasuredAnswer<J>[];
  /** The cases' count (each connection asked each case once). */
  readonly cases: number;
  /** The cascade asked tier by tier, or null. */
  readonly cascade: CalibratedCascade | null;
}

/** The Judgment's escalation cascade as a calibration asks it: each tier's connection and Decision. */
interface CalibratedCascade {
  readonly tiers: readonly CascadeTier[];
  /** The cascade's Decision, as the measured Decisions hold it. */
  readonly decision: ResolvedDecision;
  /** Per tier, the Decision deciding with that tier's thresholds. */
  readonly tierDecisions: readonly Decision[];
}

interface ResolvedDecision {
  readonly instance: Decision;
  readonly metadata: DecisionMetadata;
}

/**
 * Measures Decisions against labelled cases before anyone trusts their thresholds:
 * `calibration.for(RefundAbuse).fromDataset('cases.json').decisions(RefundDecision).run()`. A run asks the Engine
 * once per case and connection, and records, caches, logs and announces nothing.
 */
@Injectable()
export class Calibration {
  private readonly services: CalibrationServices;
  private readonly concurrency: number;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    engines: EngineManager,
    registry: JudgmentRegistry,
    rows: RecordWriter,
  ) {
    this.concurrency = options.calibration.concurrency;
    this.services = {
      engines,
      registry,
      maxEvidenceBytes: options.maxEvidenceBytes,
      dataSource: () => rows.dataSource(),
    };
  }

  /** A calibration of a Judgment class, labelled by its Resolutions until told otherwise. */
  for<J extends Judgment>(judgment: JudgmentClass<J>): CalibrationBuilder<J> {
    if (typeof judgment !== 'function' || !isJudgmentClass(judgment)) {
      throw new InvalidCalibration(
        `${describeValue(judgment)} is not a Judgment: calibrate a class declared with @Judgment() that has evidence() ` +
          'and questions() methods.',
      );
    }
    return new CalibrationBuilder(this.services, {
      judgment,
      source: { kind: 'resolutions' },
      engines: null,
      decisions: null,
      concurrency: this.concurrency,
      subject: null,
      fitTemperature: false,
    });
  }
}

/** An immutable calibration builder: every method returns a new builder. */
export class CalibrationBuilder<J extends Judgment> {
  constructor(
    private readonly services: CalibrationServices,
    private readonly plan: CalibrationPlan<J>,
  ) {
    Object.freeze(this);
  }

  /** Labels from the Judgment's resolved records (the default): a reviewer's Resolution is the right Outcome. */
  fromResolutions(): CalibrationBuilder<J> {
    return this.with({ source: { kind: 'resolutions' } });
  }

  /** Labels from a JSON file: `[{ "subject": { ...attributes } | key, "expected": "approve", "truth"?: {...} }]`. */
  fromDataset(path: string): CalibrationBuilder<J> {
    if (typeof path !== 'string' || path.trim() === '') {
      throw new InvalidCalibration('fromDataset() takes the path of a JSON list of labelled cases.');
    }
    return this.with({ source: { kind: 'dataset', path } });
  }

  /** Labels given in memory: `LabelledCase.of(new RefundAbuse(refund), RefundOutcome.Approve)`. */
  cases(cases: Iterable<LabelledCase<J>>): CalibrationBuilder<J> {
    const list = [...cases];
    list.forEach((labelled, index) => {
      if (!(labelled instanceof LabelledCase) || !(labelled.judgment instanceof this.plan.judgment)) {
        throw new InvalidCalibration(
          `The case at index ${index} is not a labelled case of ${this.plan.judgment.name}: make each with ` +
            `LabelledCase.of(new ${this.plan.judgment.name}(...), expectedOutcome).`,
        );
      }
    });
    return this.with({ source: { kind: 'cases', cases: Object.freeze(list) } });
  }

  /** Asks each named connection (a result per model) instead of each Judgment's own Engine. */
  engines(...connections: string[]): CalibrationBuilder<J> {
    for (const connection of connections) {
      if (typeof connection !== 'string' || connection.trim() === '') {
        throw new InvalidCalibration('engines() takes the names of configured Engine connections, e.g. "jev".');
      }
    }
    return this.with({ engines: connections.length ? Object.freeze([...connections]) : null });
  }

  /** Measures these Decisions (a result per Decision) instead of the Judgment's default Decision. */
  decisions(...decisions: Type<Decision>[]): CalibrationBuilder<J> {
    for (const decision of decisions) {
      if (typeof decision !== 'function' || !isDecision(decision)) {
        throw new InvalidCalibration(
          `${describeValue(decision)} is not a Decision: pass classes declared with @Decision({ outcomes, review }).`,
        );
      }
    }
    return this.with({ decisions: decisions.length ? Object.freeze([...decisions]) : null });
  }

  /** How many Engine rounds may be in flight at once. */
  concurrency(cases: number): CalibrationBuilder<J> {
    return this.with({ concurrency: checkConcurrency(cases, 'concurrency()') });
  }

  /**
   * Also fit a temperature per connection and model to the cases' Likelihood truths (minimising their negative
   * log-likelihood) and report ECE before and after it. Only drivers that record logprob masses (openai) take part;
   * apply the fitted value as `engines.<connection>.temperatureScaling`.
   */
  fitTemperature(): CalibrationBuilder<J> {
    return this.with({ fitTemperature: true });
  }

  /**
   * The entity class a dataset's Subjects are built as, when the Judgment constructor's first parameter does not
   * name it (e.g. it is typed with an interface).
   */
  subject(entity: Type<object>): CalibrationBuilder<J> {
    if (typeof entity !== 'function') {
      throw new InvalidCalibration('subject() takes the TypeORM entity class the Judgment is constructed with.');
    }
    return this.with({ subject: entity });
  }

  /**
   * Asks the Engine about every case (per connection), applies every Decision and tallies the results. Stops with
   * InvalidCalibration when there are no cases or an expected Outcome is not an automatic Outcome of a Decision —
   * checked before any Engine is asked. A case the Engine fails to assess counts as unassessed.
   */
  async run(options: CalibrationRunOptions = {}): Promise<CalibrationReport> {
    return (await this.measure(options)).report;
  }

  /**
   * Asks the Engine about every case once (like run()), then searches each Decision's thresholds over those answers
   * (no further Engine call) for the candidate with the lowest review rate whose error rate of automatic Outcomes is
   * at most `maxError` with probability `confidence` (Learn then Test; see SUGGESTION_METHOD). Each Decision must
   * declare `thresholds`; the target is checked before any Engine is asked. With `maxReviewsPerDay`, the review load at
   * the Judgment's recorded traffic (decisions per day over the last TRAFFIC_WINDOW_DAYS days) is one more bound.
   */
  async suggest(target: SuggestOptions, options: CalibrationRunOptions = {}): Promise<CalibrationSuggestion> {
    checkSuggestOptions(target);
    for (const decision of this.resolveDecisions(judgmentName(this.plan.judgment))) {
      if (decisionThresholds(decision.instance) === null) {
        throw new InvalidSuggestion(
          `${decision.metadata.name} declares no thresholds, so there is nothing to suggest: declare them as data ` +
            'read by decide(), e.g. `readonly thresholds = { reject: 0.8, approve: 0.3 }`.',
        );
      }
    }
    const cascade = this.cascade(judgmentName(this.plan.judgment));
    if (cascade) this.checkCascadeSuggestion(cascade, target);
    // The review load is checked at the Judgment's recorded traffic, read before any Engine is asked.
    const held =
      target.maxReviewsPerDay !== undefined && target.traffic === undefined
        ? {
            ...target,
            traffic: await recordedTraffic(this.services.dataSource(), judgmentName(this.plan.judgment)),
          }
        : target;
    const measured = await this.measure(options);
    if (measured.cascade) {
      return new CalibrationSuggestion(measured.report, [], this.cascadeSuggestion(measured.cascade, measured, held));
    }
    const suggestions = measured.decisions.flatMap((decision, position) => {
      const groups = new Map<string, { identity: CalibrationIdentity; cases: SuggestionCase[] }>();
      for (const answer of measured.answers) {
        if (answer.answered instanceof EngineFailed) continue;
        const identity = answer.identity(decision);
        const key = JSON.stringify(identity);
        const group = groups.get(key) ?? { identity, cases: [] };
        group.cases.push({ assessment: answer.answered.assessment, expected: answer.expected[position] });
        groups.set(key, group);
      }
      return [...groups.values()].map(({ identity, cases }) =>
        suggestThresholds(decision.instance, decision.metadata, identity, cases, held),
      );
    });
    return new CalibrationSuggestion(measured.report, suggestions);
  }

  /**
   * Refits the temperature of each identity (connection, model, Questions, Decision and version) from the Judgment's
   * resolved Reviews and audits — the person's Outcome against the option masses a logprob driver (openai) recorded,
   * read back through the Decision (RESOLUTION_TRUTH_RULE) — with the same fit as `fitTemperature()`. No Engine call;
   * resolutions of one identity are never mixed with another's.
   */
  fitTemperatureFromResolutions(): Promise<ResolutionTemperatures> {
    return resolutionTemperatures(this.plan.judgment, this.services.registry, this.services.dataSource());
  }

  /** Asks every case once and tallies every Decision: the report, and each answer for a suggestion. */
  private async measure(options: CalibrationRunOptions): Promise<Measured<J>> {
    const { judgment } = this.plan;
    const name = judgmentName(judgment);
    const { cases, skipped } = await this.load();
    if (cases.length === 0) {
      throw new InvalidCalibration(
        `No labelled cases to calibrate ${judgment.name} against` +
          (this.plan.source.kind === 'resolutions'
            ? ` (no resolved records of ${name}${skipped ? `; ${skipped} skipped for lack of a Subject` : ''}): ` +
              'resolve Reviews first, or pass a dataset.'
            : '.'),
      );
    }
    const decisions = this.resolveDecisions(name);
    const prepared = cases.map((labelled, index) =>
      prepare(labelled, index, decisions, this.services.maxEvidenceBytes),
    );

    // A cascade is asked tier by tier (unless other connections are named): each tier decides with its thresholds.
    const cascade = this.cascade(name, decisions);
    const connections = cascade ? cascade.tiers.map((tier) => tier.connection) : (this.plan.engines ?? [null]);
    const decisionsOf = (tier: number | null): ResolvedDecision[] =>
      cascade === null || tier === null
        ? decisions
        : decisions.map((decision) =>
            decision === cascade.decision ? { ...decision, instance: cascade.tierDecisions[tier] } : decision,
          );
    const tasks = connections.flatMap((connection, tier) =>
      prepared.map((item) => ({
        item,
        engine: this.engine(connection, item.labelled.judgment),
        decisions: decisionsOf(cascade ? tier : null),
      })),
    );
    options.onStart?.(
      new Map(
        connections.map((connection) => [connection ?? this.services.engines.defaultConnectionName(), prepared.length]),
      ),
    );
    // Decisions run as soon as a case is answered, so a Decision that throws stops the run before the remaining
    // (paid) rounds are asked.
    const answered = await mapBounded(
      tasks,
      this.plan.concurrency,
      async ({ item, engine, decisions: deciding }): Promise<AnsweredCase<J> | EngineFailed> => {
        let assessment: Assessment<J>;
        try {
          // Bulk work: within the connection's limits it uses only its share of each window, so live calls go first.
          assessment = await ask(item.labelled.judgment, {
            questions: item.questions,
            evidence: item.labelled.evidence,
            engine,
            limits: BULK_LIMITS,
          });
        } catch (error) {
          if (error instanceof EngineFailed) return error;
          throw error;
        }
        const outcomes: Outcome[] = [];
        for (const decision of deciding) outcomes.push(await decideCase(assessment, decision, item.index));
        return { assessment, outcomes };
      },
      (done) => options.onProgress?.(done, tasks.length),
    );

    // A failed case files under the model its Engine reported for another case, not under an alias.
    const reported = new Map<Engine, string>();
    tasks.forEach(({ engine }, index) => {
      const answer = answered[index];
      if (!(answer instanceof EngineFailed) && !reported.has(engine)) {
        reported.set(engine, answer.assessment.provenance.model);
      }
    });

    const context = {
      judgment: name,
      dataset: datasetFingerprint(prepared.map((item) => item.labelled)),
      connections: connectionsByModel(answered, this.services.engines),
      thresholds: Object.fromEntries(
        decisions.map((decision) => [decision.metadata.name, decisionThresholds(decision.instance)]),
      ),
      calibratedAt: new Date().toISOString(),
      cascade: cascade && this.cascadeContext(cascade, answered, prepared.length),
    };
    const answers: MeasuredAnswer<J>[] = [];
    const tally = new CalibrationTally();
    for (const [index, { item, engine }] of tasks.entries()) {
      const answer = answered[index];
      const model =
        answer instanceof EngineFailed ? (reported.get(engine) ?? engine.model()) : answer.assessment.provenance.model;
      const measures = answer instanceof EngineFailed ? [] : measuresOf(answer.assessment, item.questions);
      const signals =
        answer instanceof EngineFailed ? [] : answerSignals(item.questions, answer.assessment.encodedAnswers());
      const identityOf = (decision: ResolvedDecision): CalibrationIdentity => ({
        questions: item.fingerprint,
        model,
        decision: decision.metadata.name,
        decisionVersion: decision.metadata.version,
        language: item.labelled.language,
      });
      answers.push({
        answered: answer,
        identity: identityOf,
        expected: decisions.map(
          ({ metadata }) => metadata.outcomes.find((o) => String(o) === String(item.labelled.expected)) as Outcome,
        ),
      });
      decisions.forEach((decision, position) => {
        const identity = identityOf(decision);
        if (answer instanceof EngineFailed) {
          tally.unassessed(identity);
          return;
        }
        const outcome = answer.outcomes[position];
        tally.decided(identity, {
          outcome: String(outcome),
          expected: String(item.labelled.expected),
          sentToReview: decision.metadata.review.has(outcome),
          measures,
          truth: item.labelled.truth,
          signals,
        });
      });
    }
    const report = tally.report(skipped, context);
    if (!this.plan.fitTemperature) return { report, decisions, answers, cases: prepared.length, cascade };
    const assessed = tasks.flatMap(({ item }, index) => {
      const answer = answered[index];
      return answer instanceof EngineFailed
        ? []
        : [{ provenance: answer.assessment.provenance, truth: item.labelled.truth }];
    });
    return {
      report: report.withTemperatures(fitTemperatures(assessed)),
      decisions,
      answers,
      cases: prepared.length,
      cascade,
    };
  }

  /**
   * The Judgment's escalation cascade as this calibration asks it, or null: without one, or when other connections
   * are named (`engines()`: each is then measured on its own).
   */
  private cascade(name: string, decisions = this.resolveDecisions(name)): CalibratedCascade | null {
    const metadata = judgmentMetadata(this.plan.judgment);
    if (!metadata.cascade || this.plan.engines !== null) return null;
    const decision = decisions.find((d) => d.instance.constructor === metadata.decision);
    if (!decision) return null;
    const declared = decisionThresholds(decision.instance);
    const tierDecisions = metadata.cascade.map((tier) => {
      const own = (tier.thresholds ?? {}) as Thresholds;
      return declared === null || Object.keys(own).length === 0
        ? decision.instance
        : withThresholds(decision.instance, { ...declared, ...own });
    });
    return { tiers: metadata.cascade, decision, tierDecisions };
  }

  /**
   * What a cascade suggestion can be refused for before any Engine is asked: another Decision than the cascade's, a
   * tier without a price when the cost is minimised, a grid or band naming a threshold the Decision does not declare.
   */
  private checkCascadeSuggestion(cascade: CalibratedCascade, target: SuggestOptions): void {
    const name = judgmentName(this.plan.judgment);
    const { metadata } = cascade.decision;
    if (
      this.plan.decisions !== null &&
      this.plan.decisions.some((cls) => cls !== cascade.decision.instance.constructor)
    ) {
      throw new InvalidSuggestion(
        `${name} declares an escalation cascade deciding with ${metadata.name}: a suggestion chooses its tiers' ` +
          `thresholds for that Decision only. Leave out the other Decisions (--decision), or name one connection ` +
          '(--engine) to calibrate it alone.',
      );
    }
    cascade.tiers.forEach((tier, index) => {
      const where = `${metadata.name} (tier ${index + 1}, "${tier.connection}")`;
      const thresholds = decisionThresholds(cascade.tierDecisions[index]) as Thresholds;
      candidateGrid(where, thresholds, target.grid, DEFAULT_CASCADE_GRID_STEP);
      if (target.reviewBands) declaredBands(where, thresholds, target.reviewBands);
      if ((target.objective ?? 'cost') === 'cost' && this.services.engines.price(tier.connection) === null) {
        throw new InvalidSuggestion(
          `Tier ${index + 1} of ${name} ("${tier.connection}") declares no price, so the cost per decision cannot be ` +
            `minimised: declare engines.${tier.connection}.price (e.g. { inputPerMillion: 0.15, outputPerMillion: ` +
            '0.6 } or { perRequest: 0.001 }), or ask for the fewest reviews instead (--objective review). No Engine ' +
            'was asked.',
        );
      }
    });
  }

  /** Each tier as the lock records it: its connection, driver, the model it answered with, its thresholds. */
  private cascadeContext(
    cascade: CalibratedCascade,
    answered: readonly (AnsweredCase<J> | EngineFailed)[],
    cases: number,
  ): CascadeTierContext[] {
    return cascade.tiers.map((tier, index) => {
      const first = answered
        .slice(index * cases, (index + 1) * cases)
        .find((answer): answer is AnsweredCase<J> => !(answer instanceof EngineFailed));
      return {
        decision: cascade.decision.metadata.name,
        connection: tier.connection,
        driver: this.driverOf(tier.connection),
        model: first?.assessment.provenance.model ?? null,
        thresholds: decisionThresholds(cascade.tierDecisions[index]),
      };
    });
  }

  /** The cascade's thresholds chosen together from the measured answers (no further Engine call). */
  private cascadeSuggestion(
    cascade: CalibratedCascade,
    measured: Measured<J>,
    options: SuggestOptions,
  ): CascadeThresholdSuggestion {
    const position = measured.decisions.indexOf(cascade.decision);
    const tiers = cascade.tiers.map((tier, index): CascadeTierAnswers => {
      const answers = measured.answers.slice(index * measured.cases, (index + 1) * measured.cases);
      const assessments = answers.map(({ answered }) =>
        answered instanceof EngineFailed ? null : answered.assessment,
      );
      return {
        connection: tier.connection,
        driver: this.driverOf(tier.connection),
        model: assessments.find((a) => a !== null)?.provenance.model ?? null,
        price: this.services.engines.price(tier.connection),
        thresholds: decisionThresholds(cascade.tierDecisions[index]) as Thresholds,
        answers: assessments,
      };
    });
    const expected = measured.answers.slice(0, measured.cases).map((answer) => answer.expected[position]);
    return suggestCascadeThresholds(
      judgmentName(this.plan.judgment),
      cascade.decision.instance,
      cascade.decision.metadata,
      tiers,
      expected,
      options,
    );
  }

  private driverOf(connection: string): string | null {
    try {
      return this.services.engines.describe(connection).driver;
    } catch {
      return null;
    }
  }

  private with(changes: Partial<CalibrationPlan<J>>): CalibrationBuilder<J> {
    return new CalibrationBuilder(this.services, { ...this.plan, ...changes });
  }

  private load(): Promise<LoadedCases<J>> | LoadedCases<J> {
    const { source, judgment } = this.plan;
    switch (source.kind) {
      case 'cases':
        return { cases: [...source.cases], skipped: 0 };
      case 'dataset':
        return datasetCases(source.path, judgment, this.plan.subject, this.services.dataSource());
      case 'resolutions':
        return resolutionCases(judgment, this.services.dataSource());
    }
  }

  private resolveDecisions(name: string): ResolvedDecision[] {
    const classes = this.plan.decisions ?? [judgmentMetadata(this.plan.judgment).decision];
    return classes.map((cls) => {
      if (!cls) throw new NoDefaultDecision(name);
      return {
        instance: this.services.registry.decisionOf(cls as Type<Decision>),
        metadata: decisionMetadata(cls),
      };
    });
  }

  /** The named connection's Engine, or the Judgment's own (its engine(), its @Judgment engine, the default). */
  private engine(connection: string | null, judgment: J): Engine {
    const name =
      connection ??
      judgment.engine?.() ??
      judgmentMetadata(judgment.constructor).engine ??
      this.services.engines.defaultConnectionName();
    return this.services.engines.connection(name);
  }
}

/** Reads a case's Questions and checks its labels against every Decision before any Engine is asked. */
function prepare<J extends Judgment>(
  labelled: LabelledCase<J>,
  index: number,
  decisions: readonly ResolvedDecision[],
  maxEvidenceBytes: number,
): PreparedCase<J> {
  const name = judgmentName(labelled.judgment);
  // Every case is checked before the first is asked: an oversize one stops the run before anything is paid.
  const limit = judgmentMetadata(labelled.judgment.constructor).maxEvidenceBytes ?? maxEvidenceBytes;
  checkEvidenceSize(`${name} (the case at index ${index})`, prepareEvidence(labelled.evidence), limit);
  const questions = readQuestions(name, labelled.judgment.questions());
  const at = `The case at index ${index}`;
  for (const { metadata } of decisions) {
    const expected = metadata.outcomes.find((outcome) => String(outcome) === String(labelled.expected));
    if (expected === undefined) {
      throw new InvalidCalibration(
        `${at} expects ${JSON.stringify(labelled.expected)}, which is not an Outcome of ${metadata.name}: expected ` +
          `${orList(metadata.outcomes.map((outcome) => JSON.stringify(outcome)))}.`,
      );
    }
    if (metadata.review.has(expected)) {
      throw new InvalidCalibration(
        `${at} expects ${JSON.stringify(expected)}, which ${metadata.name} sends to Review, so it cannot be the right ` +
          'Outcome of a case: label it with the Outcome a reviewer would settle on.',
      );
    }
  }
  const keys = likelihoodKeys(questions);
  for (const [key, value] of Object.entries(labelled.truth)) {
    if (!keys.includes(key)) {
      throw new InvalidCalibration(
        `${at} gives the truth of "${key}", but ${name} asks no Likelihood "${key}" ` +
          `(its Likelihoods: ${keys.join(', ') || 'none'}).`,
      );
    }
    if (typeof value !== 'boolean') {
      throw new InvalidCalibration(`${at} gives a truth for "${key}" that is not true or false.`);
    }
  }
  return { index, labelled, questions, fingerprint: questionsFingerprint(questions) };
}

function checkConcurrency(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidCalibration(`${what} must be a whole number of cases of 1 or more; got ${JSON.stringify(value)}.`);
  }
  return value;
}

function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** Applies one Decision to an answered case; a Decision that throws stops the run, naming itself and the case. */
async function decideCase<J extends Judgment>(
  assessment: Assessment<J>,
  decision: ResolvedDecision,
  index: number,
): Promise<Outcome> {
  try {
    // The Decision's own Outcome: a Review Outcome is what calibration counts as sent to Review.
    return decidedOutcome(await assessment.decide(decision.instance as Decision<J, Outcome>));
  } catch (error) {
    throw new InvalidCalibration(
      `${decision.metadata.name} threw on the case at index ${index}: ${(error as Error).message} ` +
        'The run stopped without asking the Engine about the cases not yet started. A Decision must return an ' +
        'Outcome for every answer: to survey a Judgment before its thresholds are set, measure a candidate Decision.',
      { cause: error },
    );
  }
}

/** SHA-256 of the labelled cases (Evidence fingerprint, expected Outcome, truth, language, in order). */
function datasetFingerprint(cases: readonly LabelledCase<Judgment>[]): string {
  return fingerprint(
    cases.map((labelled) => [
      prepareEvidence(labelled.evidence).fingerprint,
      String(labelled.expected),
      { ...labelled.truth },
      labelled.language,
    ]),
  );
}

/** Which connection (and driver) answered with each model. */
function connectionsByModel(
  answered: readonly (AnsweredCase<Judgment> | EngineFailed)[],
  engines: EngineManager,
): Record<string, { connection: string; driver: string }> {
  const byModel: Record<string, { connection: string; driver: string }> = {};
  answered.forEach((answer) => {
    if (answer instanceof EngineFailed || byModel[answer.assessment.provenance.model]) return;
    const connection = answer.assessment.provenance.engine;
    let driver = connection;
    try {
      driver = engines.describe(connection).driver;
    } catch {
      // A fake or unnamed Engine: its provenance names it.
    }
    byModel[answer.assessment.provenance.model] = { connection, driver };
  });
  return byModel;
}
