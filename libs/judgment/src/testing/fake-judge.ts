import type { OnModuleInit } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import type { Assessment } from '../assessment/assessment';
import { type AssessmentLink, linkAssessment, linkOf } from '../assessment/links';
import { Unassessed } from '../assessment/unassessed';
import { type Outcome, decisionMetadata } from '../definition/decision.decorator';
import { type Judgment, type JudgmentClass, judgmentName } from '../definition/judgment.decorator';
import { JudgmentRegistry } from '../definition/judgment.registry';
import { EngineManager } from '../engines/engine.manager';
import { EngineFailed, UnscriptedJudgment } from '../errors';
import { AssessmentCompleted, AssessmentFailed } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { describeAttempt } from '../judge/attempt';
import { AttemptRecorder } from '../judge/attempt.recorder';
import { Decider, type LinkState } from '../judge/decider.service';
import type { AssessResult, DispatchOptions } from '../judge/judge.types';
import { JudgmentDispatcher } from '../judge/judgment.dispatcher';
import { JUDGMENT_MODULE_OPTIONS } from '../judgment.constants';
import type { JudgmentModuleOptions } from '../judgment.options';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { type AttemptContext, AssessmentRecorder } from '../persistence/assessment.recorder';
import { JudgmentAssertionError } from '../errors';
import { preventEngineCalls } from './prevented-engine';
import { type JudgmentScripts, type Script, runScript } from './scripts';

/** The module services the fake Judge works with (the same ones the real Judge uses). */
interface Collaborators {
  readonly throwOnFailure: boolean;
  readonly recorder: AssessmentRecorder;
  readonly attempts: AttemptRecorder;
  readonly decider: Decider;
  readonly events: JudgmentEventsPublisher;
  readonly dispatcher: JudgmentDispatcher;
  readonly moduleRef: ModuleRef;
}

/** An Assessment the fake made and linked, with what deciding it did. */
interface MadeAssessment {
  readonly assessment: Assessment<any>;
  readonly state: LinkState;
  /** The Outcome that sent it to Review (kept in memory, for when nothing was recorded). */
  reviewOutcome?: Outcome;
}

/** What an assertion predicate receives: the Judgment that was assessed or dispatched. */
export type JudgmentPredicate<J extends Judgment> = (judgment: J) => boolean;

/** What an assertAwaitingReview predicate receives: the Judgment and the Outcome that sent it to Review. */
export type ReviewPredicate<J extends Judgment> = (judgment: J, outcome: Outcome) => boolean;

/**
 * A Judge that answers from scripts instead of an Engine, for tests. It records, links, decides and announces like the
 * Judge (through the module's own recorder, Decider and events), prevents every real Engine call, remembers what was
 * assessed and dispatched, and offers assertions that fail a test with a clear message.
 *
 * Provide it with `JudgmentTestingModule.forRoot({ ...moduleOptions, scripts })`, or with
 * `Test.createTestingModule(...).overrideProvider(Judge).useValue(fakeJudge(scripts))`: the JudgmentModule hands its
 * ModuleRef to a Judge provided by value, so the fake reaches the same services.
 */
export class FakeJudge implements OnModuleInit {
  private readonly scripts = new Map<string, Script>();
  /** How many times each Judgment (by name) was scripted so far: a sequence's position. */
  private readonly assessments = new Map<string, number>();
  private readonly assessedJudgments: Judgment[] = [];
  private readonly dispatchedJudgments: Judgment[] = [];
  private readonly made: MadeAssessment[] = [];
  private moduleRef: ModuleRef | null = null;
  private bound: Collaborators | null = null;
  private answered = false;

  constructor(scripts: JudgmentScripts = {}) {
    for (const [name, script] of Object.entries(scripts)) this.script(name, script);
  }

  /** Scripts (or re-scripts) one Judgment by its registered name; a new sequence starts from its first script. */
  script(name: string, script: Script): this {
    this.scripts.set(name, script);
    this.assessments.delete(name);
    return this;
  }

  /** Forgets what was assessed, dispatched and decided, and restarts every sequence. Scripts stay. */
  reset(): this {
    this.assessments.clear();
    this.assessedJudgments.length = 0;
    this.dispatchedJudgments.length = 0;
    this.made.length = 0;
    this.answered = false;
    return this;
  }

  /** Called by the JudgmentModule it is provided in: the module whose recorder, Decider and events it uses. */
  bindToModule(moduleRef: ModuleRef): void {
    this.moduleRef = moduleRef;
    this.bound = null;
  }

  /** Prevents the module's Engine calls before the app bootstraps (and its startup check builds connections). */
  onModuleInit(): void {
    this.collaborators();
  }

  /**
   * Answers from the Judgment's script, then records, links and announces the Assessment like the Judge (no cache, no
   * `Judgment assessed.` log). A script throwing EngineFailed is recorded as an Unassessed attempt, announced, then
   * thrown or returned per throwOnFailure. No script: UnscriptedJudgment, nothing recorded.
   */
  async assess<J extends Judgment>(judgment: J): Promise<AssessResult<J>> {
    const { events } = this.collaborators();
    this.assessedJudgments.push(judgment);
    const attempt = describeAttempt(judgment);
    const script = this.scripts.get(attempt.name);
    if (script === undefined) {
      const scripted = [...this.scripts.keys()].join(', ') || 'none';
      throw new UnscriptedJudgment(
        `The fake Judge has no script for ${attempt.name} (scripted: ${scripted}). Add scripts: { '${attempt.name}': ` +
          '... } to fakeJudge() or JudgmentTestingModule.forRoot(), or call script() on the fake.',
      );
    }
    const number = (this.assessments.get(attempt.name) ?? 0) + 1;
    this.assessments.set(attempt.name, number);

    let assessment: Assessment<J>;
    try {
      assessment = runScript(attempt.name, script, judgment, number).make();
    } catch (error) {
      if (!(error instanceof EngineFailed)) throw error;
      return this.failed(judgment, attempt, error) as unknown as Promise<AssessResult<J>>;
    }
    this.answered = true;
    const record = await this.record(attempt, assessment);
    await events.emit(new AssessmentCompleted(judgment, assessment, record));
    return assessment as AssessResult<J>;
  }

  /** Remembers the Judgment for assertDispatched(), then hands it to the app's dispatcher (which assesses through this fake). */
  dispatch(judgment: Judgment, options: DispatchOptions = {}): Promise<string> {
    const { dispatcher } = this.collaborators();
    this.dispatchedJudgments.push(judgment);
    return dispatcher.dispatch(judgment, options);
  }

  /** Always 0: the fake spends no tokens. */
  usage(_connection?: string): number {
    return 0;
  }

  /** `fake` once the fake answered, else null. */
  lastModel(): string | null {
    return this.answered ? 'fake' : null;
  }

  /** Fails unless a Judgment of the class (or a subclass) was assessed, and matched the predicate if one is given. */
  assertAssessed<J extends Judgment>(cls: JudgmentClass<J>, predicate?: JudgmentPredicate<J>): void {
    expectSome('assessed', this.assessedJudgments, cls, predicate);
  }

  /** Fails if a Judgment of the class (or a subclass) was assessed (matching the predicate if one is given). */
  assertNotAssessed<J extends Judgment>(cls: JudgmentClass<J>, predicate?: JudgmentPredicate<J>): void {
    expectNone('assessed', this.assessedJudgments, cls, predicate);
  }

  /** Fails if anything was assessed. */
  assertNothingAssessed(): void {
    const count = this.assessedJudgments.length;
    if (count === 0) return;
    throw new JudgmentAssertionError(
      `Expected nothing to be assessed, but ${count} ${count === 1 ? 'Judgment was' : 'Judgments were'}: ` +
        `${tally(this.assessedJudgments)}.`,
    );
  }

  /** Fails unless a Judgment of the class (or a subclass) was dispatched, and matched the predicate if one is given. */
  assertDispatched<J extends Judgment>(cls: JudgmentClass<J>, predicate?: JudgmentPredicate<J>): void {
    expectSome('dispatched', this.dispatchedJudgments, cls, predicate);
  }

  /** Fails if a Judgment of the class (or a subclass) was dispatched (matching the predicate if one is given). */
  assertNotDispatched<J extends Judgment>(cls: JudgmentClass<J>, predicate?: JudgmentPredicate<J>): void {
    expectNone('dispatched', this.dispatchedJudgments, cls, predicate);
  }

  /**
   * Fails unless an Assessment this fake made for the class (or a subclass) awaits Review (matching the predicate if
   * one is given). A recorded one is read again from its record (so a resolved record no longer awaits Review); an
   * unrecorded one (persistence off) counts once deciding it sent it to Review.
   */
  async assertAwaitingReview<J extends Judgment>(cls: JudgmentClass<J>, predicate?: ReviewPredicate<J>): Promise<void> {
    const ofClass = this.made.filter((made) => made.assessment.judgment instanceof cls);
    const awaiting: Array<[J, Outcome]> = [];
    for (const made of ofClass) {
      const outcome = await this.reviewOutcome(made);
      if (outcome !== undefined) awaiting.push([made.assessment.judgment as J, outcome]);
    }
    if (awaiting.length === 0) {
      throw new JudgmentAssertionError(
        `Expected ${describeClass(cls)} to await Review, but it did not: ${ofClass.length} ${describeClass(cls)} ` +
          `Assessment(s) made, none in Review.`,
      );
    }
    if (predicate && !awaiting.some(([judgment, outcome]) => predicate(judgment, outcome))) {
      throw new JudgmentAssertionError(
        `Expected ${describeClass(cls)} to await Review matching the predicate, but none of the ${awaiting.length} ` +
          `awaiting Review matched.`,
      );
    }
  }

  private collaborators(): Collaborators {
    if (this.bound) return this.bound;
    const moduleRef = this.moduleRef;
    if (!moduleRef) {
      throw new Error(
        'This fake Judge is not part of a compiled Nest module. Provide it with Test.createTestingModule(...)' +
          '.overrideProvider(Judge).useValue(fakeJudge(scripts)) next to JudgmentModule.forRoot(), or import ' +
          'JudgmentTestingModule.forRoot({ scripts }) instead of JudgmentModule.forRoot().',
      );
    }
    preventEngineCalls(moduleRef.get(EngineManager));
    this.bound = {
      throwOnFailure: moduleRef.get<JudgmentModuleOptions>(JUDGMENT_MODULE_OPTIONS).throwOnFailure ?? true,
      recorder: moduleRef.get(AssessmentRecorder),
      attempts: moduleRef.get(AttemptRecorder),
      decider: moduleRef.get(Decider),
      events: moduleRef.get(JudgmentEventsPublisher),
      dispatcher: moduleRef.get(JudgmentDispatcher),
      moduleRef,
    };
    return this.bound;
  }

  /** Links the Assessment for deciding, then records it like the Judge (required recording that fails throws). */
  private async record(attempt: AttemptContext, assessment: Assessment<any>): Promise<AssessmentRecord | null> {
    const made: MadeAssessment = { assessment, state: { record: null, refused: false, awaitingReview: false } };
    this.link(made);
    this.made.push(made);
    return this.collaborators().attempts.answered(attempt, assessment, made.state);
  }

  /** The Decider's link, wrapped to remember the Outcome that sent the Assessment to Review. */
  private link(made: MadeAssessment): void {
    this.collaborators().decider.link(made.assessment, made.state);
    const link = linkOf(made.assessment);
    if (!link) return;
    // Inherit every member of the Decider's link; only `decided` is wrapped.
    const wrapped: AssessmentLink = Object.create(link);
    wrapped.decided = async (assessment, decision, outcome) => {
      const wasAwaiting = made.state.awaitingReview;
      try {
        await link.decided(assessment, decision, outcome);
      } finally {
        if (!wasAwaiting && made.state.awaitingReview) made.reviewOutcome = outcome;
      }
    };
    linkAssessment(made.assessment, wrapped);
  }

  private async failed<J extends Judgment>(
    judgment: J,
    attempt: AttemptContext,
    error: EngineFailed,
  ): Promise<Unassessed<J, AssessmentRecord>> {
    const { throwOnFailure, attempts, events } = this.collaborators();
    const record = await attempts.failed(attempt, error, null);
    await events.emit(new AssessmentFailed(judgment, error, record));
    if (throwOnFailure) throw error;
    return new Unassessed(judgment, error, record);
  }

  /** The Outcome a made Assessment awaits Review with, or undefined when it does not await Review. */
  private async reviewOutcome(made: MadeAssessment): Promise<Outcome | undefined> {
    if (!made.state.record) return made.state.awaitingReview ? made.reviewOutcome : undefined;
    const { recorder, moduleRef } = this.collaborators();
    const record = await recorder.repository().findOneBy({ id: made.state.record.id });
    if (!record?.isAwaitingReview() || record.outcome === null) return undefined;
    if (made.reviewOutcome !== undefined && String(made.reviewOutcome) === record.outcome) return made.reviewOutcome;
    return typedOutcome(record, moduleRef);
  }
}

/** A fake Judge answering from `scripts` (keyed by Judgment name), for `overrideProvider(Judge).useValue(...)`. */
export function fakeJudge(scripts: JudgmentScripts = {}): FakeJudge {
  return new FakeJudge(scripts);
}

/** A record's stored Outcome as its Decision's value (an int-backed enum comes back as a number), else the string. */
function typedOutcome(record: AssessmentRecord, moduleRef: ModuleRef): Outcome {
  const stored = record.outcome as string;
  try {
    const registry = moduleRef.get(JudgmentRegistry, { strict: false });
    const decision = registry.decision(record.decision as string);
    return decisionMetadata(decision).outcomes.find((outcome) => String(outcome) === stored) ?? stored;
  } catch {
    return stored;
  }
}

function expectSome<J extends Judgment>(
  verb: 'assessed' | 'dispatched',
  seen: readonly Judgment[],
  cls: JudgmentClass<J>,
  predicate?: JudgmentPredicate<J>,
): void {
  const ofClass = seen.filter((judgment): judgment is J => judgment instanceof cls);
  if (ofClass.length === 0) {
    throw new JudgmentAssertionError(
      `Expected ${describeClass(cls)} to be ${verb}, but it was not (${verb}: ${tally(seen)}).`,
    );
  }
  if (predicate && !ofClass.some((judgment) => predicate(judgment))) {
    throw new JudgmentAssertionError(
      `Expected ${describeClass(cls)} to be ${verb} matching the predicate, but none of the ${ofClass.length} ${verb} ` +
        'matched.',
    );
  }
}

function expectNone<J extends Judgment>(
  verb: 'assessed' | 'dispatched',
  seen: readonly Judgment[],
  cls: JudgmentClass<J>,
  predicate?: JudgmentPredicate<J>,
): void {
  const count = seen.filter((judgment) => judgment instanceof cls && (!predicate || predicate(judgment as J))).length;
  if (count === 0) return;
  throw new JudgmentAssertionError(
    `Expected ${describeClass(cls)} not to be ${verb}${predicate ? ' matching the predicate' : ''}, but it was, ` +
      `${count} ${count === 1 ? 'time' : 'times'}.`,
  );
}

/** `RefundAbuse`, or `RefundAbuse ("refund-abuse")` when its registered name differs. */
function describeClass(cls: Function): string {
  const name = judgmentName(cls);
  return name === cls.name ? cls.name : `${cls.name} ("${name}")`;
}

/** `SupportTicket ×2, RefundAbuse ×1` in first-seen order, or `nothing`. */
function tally(judgments: readonly Judgment[]): string {
  const counts = new Map<string, number>();
  for (const judgment of judgments) {
    const name = describeClass(judgment.constructor);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, count]) => `${name} ×${count}`).join(', ') || 'nothing';
}
