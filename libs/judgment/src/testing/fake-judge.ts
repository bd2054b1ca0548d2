import { OnEvent } from '@nestjs/event-emitter';
import type { Assessment } from '../assessment/assessment';
import { decisionMetadata } from '../decision/decision.decorator';
import type { Outcome } from '../definition/outcome';
import { type Judgment, type JudgmentClass, judgmentName } from '../definition/judgment.decorator';
import type { Engine, EngineAnswer, EngineResponse } from '../engines/engine.interface';
import { EngineFailed, UnscriptedJudgment } from '../errors';
import {
  AssessmentCompleted,
  AssessmentDispatched,
  AssessmentFailed,
  type JudgmentEvent,
  ReviewRequested,
  ReviewResolved,
} from '../events/judgment.events';
import { AnswerSource } from '../judge/answer-source';
import type { AssessmentRecords } from '../records/assessment-records.service';
import type { JudgmentRegistry } from '../registry/judgment.registry';
import { JudgmentAssertionError } from '../errors';
import { type JudgmentScripts, type Script, runScript } from './scripts';

/** What an assertion predicate receives: the Judgment that was assessed or dispatched. */
export type JudgmentPredicate<J extends Judgment> = (judgment: J) => boolean;

/** What an assertAwaitingReview predicate receives: the Judgment and the Outcome that sent it to Review. */
export type ReviewPredicate<J extends Judgment> = (judgment: J, outcome: Outcome) => boolean;

/** An Assessment the Judge made (AssessmentCompleted), and its record's id (null when nothing was recorded). */
interface MadeAssessment {
  readonly assessment: Assessment<any>;
  readonly recordId: number | null;
}

/**
 * Scripted answers in place of the app's Engine connections, for tests, with assertions that fail a test with a clear
 * message. It is the module's AnswerSource: the real Judge asks it for each attempt's Engine and gets a scripted one,
 * so a faked Judgment is recorded, announced and decided by the Judge's own code. No connection is ever asked.
 * What happens after the answers — dispatches, Assessments made, cases sent to Review and resolved — it learns from
 * the library's events, as one of the app's listeners (the app imports EventEmitterModule).
 *
 * Provide it with `JudgmentTestingModule.forRoot({ ...moduleOptions, scripts })`, or with
 * `Test.createTestingModule(...).overrideProvider(AnswerSource).useValue(fakeJudge(scripts))`.
 */
export class FakeJudge extends AnswerSource {
  private readonly scripts = new Map<string, Script>();
  /** How many times each Judgment (by name) was scripted so far: a sequence's position. */
  private readonly assessments = new Map<string, number>();
  private readonly assessedJudgments: Judgment[] = [];
  private readonly dispatchedJudgments: Judgment[] = [];
  private readonly made: MadeAssessment[] = [];
  /** The Outcome that sent each case to Review, by record id (an unrecorded one by its Assessment). */
  private readonly inReview = new Map<number | Assessment<any>, Outcome>();
  /** The events already taken in: one provider under two tokens is one listener. */
  private readonly heard = new WeakSet<object>();
  private heardAny = false;
  /** Whether the fake gave an Engine (answering or failing): the Judge announces such attempts. */
  private gaveEngine = false;
  private answered = false;
  /** Where recorded cases are read again (JudgmentTestingModule gives it); null: the events alone tell. */
  private records: { records: AssessmentRecords; registry: JudgmentRegistry } | null = null;

  constructor(scripts: JudgmentScripts = {}) {
    super();
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
    this.inReview.clear();
    this.gaveEngine = false;
    this.answered = false;
    return this;
  }

  /**
   * Reads recorded cases again from the app's records when asked whether they await Review (so a record changed
   * since counts as it is now). JudgmentTestingModule calls it; without it the events alone tell.
   */
  readRecordsFrom(records: AssessmentRecords, registry: JudgmentRegistry): this {
    this.records = { records, registry };
    return this;
  }

  /**
   * The scripted Engine of one attempt. A Judgment without a script (UnscriptedJudgment), a sequence that ran out
   * and a script that throws anything but EngineFailed are mistakes in the test, thrown before anything is asked; a
   * script throwing EngineFailed gives an Engine that fails with it, so the Judge records and announces the failure.
   */
  engineFor(judgment: Judgment, _connection: string): Engine {
    this.assessedJudgments.push(judgment);
    const name = judgmentName(judgment);
    const script = this.scripts.get(name);
    if (script === undefined) {
      const scripted = [...this.scripts.keys()].join(', ') || 'none';
      throw new UnscriptedJudgment(
        `The fake Judge has no script for ${name} (scripted: ${scripted}). Add scripts: { '${name}': ... } to ` +
          'fakeJudge() or JudgmentTestingModule.forRoot(), or call script() on the fake.',
      );
    }
    const number = (this.assessments.get(name) ?? 0) + 1;
    this.assessments.set(name, number);
    let scripted: Assessment<any> | EngineFailed;
    try {
      scripted = runScript(name, script, judgment, number).make();
      this.answered = true;
    } catch (error) {
      if (!(error instanceof EngineFailed)) throw error;
      scripted = error;
    }
    this.gaveEngine = true;
    return new ScriptedEngine(scripted);
  }

  /** Nothing to build: no connection is asked while the fake answers. */
  validate(): void {}

  @OnEvent(AssessmentDispatched.NAME)
  protected onDispatched(event: AssessmentDispatched): void {
    if (this.takes(event)) this.dispatchedJudgments.push(event.judgment);
  }

  @OnEvent(AssessmentCompleted.NAME)
  protected onCompleted(event: AssessmentCompleted): void {
    if (this.takes(event)) this.made.push({ assessment: event.assessment, recordId: event.record?.id ?? null });
  }

  @OnEvent(AssessmentFailed.NAME)
  protected onFailed(event: AssessmentFailed): void {
    this.takes(event);
  }

  @OnEvent(ReviewRequested.NAME)
  protected onReviewRequested(event: ReviewRequested): void {
    if (this.takes(event)) this.inReview.set(event.record?.id ?? event.assessment, event.outcome);
  }

  @OnEvent(ReviewResolved.NAME)
  protected onReviewResolved(event: ReviewResolved): void {
    if (this.takes(event)) this.inReview.delete(event.record.id);
  }

  /**
   * Takes in one of the module's events: JudgmentTestingModule's events publisher tells the fake each event it
   * emits, so the fake needs no EventEmitterModule there (one the app imports delivers the same events, heard once).
   */
  hear(event: JudgmentEvent): void {
    if (event instanceof AssessmentDispatched) this.onDispatched(event);
    else if (event instanceof AssessmentCompleted) this.onCompleted(event);
    else if (event instanceof AssessmentFailed) this.onFailed(event);
    else if (event instanceof ReviewRequested) this.onReviewRequested(event);
    else if (event instanceof ReviewResolved) this.onReviewResolved(event);
  }

  /** Whether the event is new to the fake (and notes that events reach it). */
  private takes(event: object): boolean {
    this.heardAny = true;
    if (this.heard.has(event)) return false;
    this.heard.add(event);
    return true;
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

  /**
   * Fails unless a Judgment of the class (or a subclass) was dispatched (AssessmentDispatched), and matched the
   * predicate if one is given.
   */
  assertDispatched<J extends Judgment>(cls: JudgmentClass<J>, predicate?: JudgmentPredicate<J>): void {
    this.requireEvents();
    expectSome('dispatched', this.dispatchedJudgments, cls, predicate);
  }

  /** Fails if a Judgment of the class (or a subclass) was dispatched (matching the predicate if one is given). */
  assertNotDispatched<J extends Judgment>(cls: JudgmentClass<J>, predicate?: JudgmentPredicate<J>): void {
    this.requireEvents();
    expectNone('dispatched', this.dispatchedJudgments, cls, predicate);
  }

  /**
   * Fails unless an Assessment made from a script for the class (or a subclass) awaits Review (matching the predicate
   * if one is given). A case counts once ReviewRequested sent it there, until ReviewResolved; under
   * JudgmentTestingModule a recorded one is read again from its record (so a record resolved since, however, no
   * longer awaits Review).
   */
  async assertAwaitingReview<J extends Judgment>(cls: JudgmentClass<J>, predicate?: ReviewPredicate<J>): Promise<void> {
    this.requireEvents();
    const ofClass = this.made.filter((made) => made.assessment.judgment instanceof cls);
    const awaiting: Array<[J, Outcome]> = [];
    for (const made of ofClass) {
      const outcome = await this.awaitedReview(made);
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

  /** The Outcome the Assessment awaits Review with, or undefined when it does not. */
  private async awaitedReview(made: MadeAssessment): Promise<Outcome | undefined> {
    if (made.recordId === null) return this.inReview.get(made.assessment);
    const marked = this.inReview.get(made.recordId);
    if (!this.records) return marked;
    const record = await this.records.records.find(made.recordId);
    if (!record?.isAwaitingReview() || record.outcome === null) return undefined;
    if (marked !== undefined && String(marked) === record.outcome) return marked;
    // Sent to Review where the fake did not hear it (another process): the Outcome as its Decision declares it.
    const { registry } = this.records;
    if (record.decision === null || !registry.hasDecision(record.decision)) return record.outcome;
    const declared = decisionMetadata(registry.decision(record.decision)).outcomes;
    return declared.find((outcome) => String(outcome) === record.outcome) ?? record.outcome;
  }

  /** The fake answered, but none of the app's events reached it: what it learns from them cannot be asserted. */
  private requireEvents(): void {
    if (!this.gaveEngine || this.heardAny) return;
    throw new JudgmentAssertionError(
      "The fake Judge answered, but none of the app's events reached it: it learns of dispatches, Assessments and " +
        'Reviews from them. With overrideProvider(AnswerSource), import EventEmitterModule.forRoot() in the test ' +
        'module and init the app (app.init() or moduleRef.init()); JudgmentTestingModule.forRoot() tells it itself.',
    );
  }
}

/** Scripted answers for the app's AnswerSource: `overrideProvider(AnswerSource).useValue(fakeJudge(scripts))`. */
export function fakeJudge(scripts: JudgmentScripts = {}): FakeJudge {
  return new FakeJudge(scripts);
}

/**
 * The Engine of one scripted attempt: it answers the script's answers in the Engine's own form (a Likelihood Set as
 * `set.label` keys) with the fake Provenance, or fails with the EngineFailed the script threw. It declares `scripted`:
 * its answers may leave Questions unanswered, are never cached, and its Assessments' Decisions run twice.
 */
class ScriptedEngine implements Engine {
  /** Answers written in advance: the Judge leaves them uncached and unpriced, and checks each Decision's purity. */
  readonly scripted = true;

  constructor(private readonly script: Assessment<any> | EngineFailed) {}

  model(): string {
    return 'fake';
  }

  async answer(): Promise<EngineResponse> {
    if (this.script instanceof EngineFailed) throw this.script;
    const { questions, provenance } = this.script;
    const answers: Record<string, EngineAnswer> = {};
    for (const [key, answer] of Object.entries(this.script.encodedAnswers())) {
      if (questions[key].kind !== 'likelihood_set') answers[key] = answer;
      else for (const [label, p] of Object.entries(answer)) answers[`${key}.${label}`] = p as number;
    }
    return { answers, provenance };
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
