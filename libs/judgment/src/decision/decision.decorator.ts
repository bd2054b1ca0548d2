import type { Type } from '@nestjs/common';
import type { Decider } from '../assessment/assessment';
import type { Judgment } from '../definition/judgment.decorator';
import type { Outcome, OutcomeEnum } from '../definition/outcome';
import { InvalidDecision } from '../errors';
import { parseDuration } from './duration';

/** The review deadlines a Decision may declare: 1 second to 366 days. */
export const REVIEW_DEADLINE_BOUNDS = { min: 1000, max: 366 * 24 * 3600 * 1000, text: '1 second to 366 days' } as const;

/** How many independent Resolutions a case in Review may require: 1 (one person settles it) to 5. */
export const REVIEWERS_BOUNDS = { min: 1, max: 5 } as const;

/** Review options of a Decision: the Outcomes that need a person and, optionally, a deadline for them. */
export interface DecisionReviewOptions<O extends Outcome = Outcome> {
  /** Outcomes that need a person: deciding one puts the record in Review. */
  outcomes: readonly O[];
  /**
   * How long a record may wait in Review (`'48h'`, `'7d'`, or milliseconds; 1 second to 366 days). When it passes,
   * the record is resolved by the system with `onExpiry`. No default: without a deadline, records wait.
   */
  deadline?: string | number;
  /** The Outcome an expired Review resolves to; required with `deadline`, and not itself a Review Outcome. */
  onExpiry?: O;
  /**
   * N-of-M review: how many independent Resolutions (votes) a case needs, 1 to 5 (REVIEWERS_BOUNDS). Default 1: the
   * first Resolution settles the case. With 2 or more, each reviewer votes blind (nobody sees the others' votes before
   * casting their own); when all `reviewers` votes agree the case is resolved with that Outcome, otherwise it needs
   * adjudication by a reviewer the ResolutionPolicy's `canAdjudicate` allows.
   */
  reviewers?: number;
}

/** A Decision's review deadline: after how long, and the Outcome it resolves to. */
export interface ReviewDeadline {
  /** Milliseconds after the record entered Review. */
  readonly after: number;
  /** The deadline as declared (e.g. `'48h'`). */
  readonly declared: string;
  readonly onExpiry: Outcome;
}

// The shape is the Assessment's own Decider (what `assessment.decide()` takes), so that assessment/ needs nothing from
// here; a Decision is a Decider declared with @Decision(), whose metadata deciding checks the Outcome against.
/**
 * A pure, application-owned mapping from an Assessment (plus facts the app already knows, read from the Judgment)
 * to an Outcome. It must read nothing else: no clock, no I/O, no state of its own.
 */
export interface Decision<J extends Judgment = any, O extends Outcome = Outcome> extends Decider<J, O> {
  /**
   * Named numeric thresholds read by `decide()` (e.g. `{ reject: 0.8, approve: 0.3 }`), declared as data so that a
   * calibration run can re-apply the same pure Decision with other values (see `withThresholds`).
   */
  readonly thresholds?: Readonly<Record<string, number>>;
}

/** Static options of a Decision class. */
export interface DecisionOptions<O extends Outcome = Outcome> {
  /** The Outcome enum, e.g. `RefundOutcome`. */
  outcomes: OutcomeEnum;
  /**
   * Outcomes that need a person: deciding one puts the record in Review. Either the list, or
   * `{ outcomes, deadline, onExpiry }` to resolve a record nobody resolved in time to `onExpiry`.
   */
  review?: readonly O[] | DecisionReviewOptions<O>;
  /** Recorded with every decision and part of the calibration identity: bump it when thresholds change. */
  version?: string | number;
  /** Stable name stored in records and used by the CLI. Default: the class name. */
  name?: string;
  /**
   * Share of automatic Outcomes, in [0, 1], also sent to reviewers as an audit (e.g. 0.02): the Outcome stands and
   * its Actions run; the audit measures it. Default 0. The module option `calibration.audit` may override it.
   */
  audit?: number;
  /**
   * Name of the Outcome enum, stored as `outcome_type` (an enum object has no name at run time, so it is not guessed).
   * Default: none (`outcome_type` is NULL; the record's `decision` names the Decision).
   */
  outcomeType?: string;
}

/** Resolved static metadata of a Decision class. */
export interface DecisionMetadata {
  readonly name: string;
  readonly outcomes: readonly Outcome[];
  readonly review: ReadonlySet<Outcome>;
  /** The review deadline, or null when records in Review wait until a person resolves them. */
  readonly reviewDeadline: ReviewDeadline | null;
  /** The independent Resolutions a case in Review needs (1: the first settles it). */
  readonly reviewers: number;
  readonly version: string | null;
  /** The Outcome enum's name as declared, or null. */
  readonly outcomeType: string | null;
  /** Share of automatic Outcomes sampled for an audit (0 when none). */
  readonly audit: number;
}

const decisions = new WeakMap<Function, DecisionMetadata>();

/** The members of an enum object (numeric enums' reverse mappings are skipped). */
export function enumValues(outcomes: OutcomeEnum): Outcome[] {
  // A numeric member `A = 0` also adds the reverse mapping `'0' → 'A'`: skip keys whose value names a member that
  // maps back to that key as a number.
  return Object.keys(outcomes)
    .filter((key) => !(typeof outcomes[key] === 'string' && outcomes[outcomes[key]] === Number(key)))
    .map((key) => outcomes[key]);
}

/** Declares a Decision class: its Outcome enum, the Outcomes that need Review, and its version. */
export function Decision<O extends Outcome>(options: DecisionOptions<O>): ClassDecorator {
  return (target) => {
    const name = options.name ?? target.name;
    if (options.outcomes === null || typeof options.outcomes !== 'object') {
      throw new InvalidDecision(`@Decision() of ${name} needs { outcomes: YourOutcomeEnum }.`);
    }
    const outcomes = enumValues(options.outcomes);
    if (outcomes.length === 0) throw new InvalidDecision(`The outcomes enum of ${name} has no members.`);
    const review = reviewOptions(name, options.review);
    for (const outcome of review.outcomes) {
      if (!outcomes.includes(outcome)) {
        throw new InvalidDecision(
          `@Decision() of ${name} lists ${JSON.stringify(outcome)} for Review, but it is not one of its outcomes ` +
            `(${outcomes.map((o) => JSON.stringify(o)).join(', ')}).`,
        );
      }
    }
    const audit = options.audit ?? 0;
    if (typeof audit !== 'number' || !(audit >= 0 && audit <= 1)) {
      throw new InvalidDecision(
        `@Decision() of ${name} has audit ${JSON.stringify(audit)}: give a share in [0, 1], e.g. 0.02.`,
      );
    }
    decisions.set(target, {
      name,
      outcomes: Object.freeze(outcomes),
      review: new Set(review.outcomes),
      reviewDeadline: reviewDeadline(name, review, outcomes),
      reviewers: reviewers(name, review),
      version: options.version === undefined ? null : String(options.version),
      outcomeType: options.outcomeType ?? null,
      audit,
    });
  };
}

/** The review options in their object form (the plain list is `{ outcomes: list }`). */
function reviewOptions(name: string, review: DecisionOptions['review']): DecisionReviewOptions {
  if (review === undefined) return { outcomes: [] };
  if (Array.isArray(review)) return { outcomes: review };
  if (review === null || typeof review !== 'object' || !Array.isArray((review as DecisionReviewOptions).outcomes)) {
    throw new InvalidDecision(
      `@Decision() of ${name} has a review option that is neither a list of Outcomes nor ` +
        '{ outcomes: [...], deadline?, onExpiry? }.',
    );
  }
  return review as DecisionReviewOptions;
}

/** Checks `review.reviewers`: a whole number within REVIEWERS_BOUNDS (default 1). */
function reviewers(name: string, review: DecisionReviewOptions): number {
  const { reviewers: count } = review;
  if (count === undefined) return 1;
  if (
    typeof count !== 'number' ||
    !Number.isInteger(count) ||
    count < REVIEWERS_BOUNDS.min ||
    count > REVIEWERS_BOUNDS.max
  ) {
    throw new InvalidDecision(
      `@Decision() of ${name} has review.reviewers ${JSON.stringify(count)}: give a whole number from ` +
        `${REVIEWERS_BOUNDS.min} to ${REVIEWERS_BOUNDS.max}, the independent Resolutions a case in Review needs ` +
        '(1: the first Resolution settles it).',
    );
  }
  return count;
}

/** Checks a declared deadline: a parseable duration within the bound, with an `onExpiry` Outcome nobody reviews. */
function reviewDeadline(name: string, review: DecisionReviewOptions, outcomes: Outcome[]): ReviewDeadline | null {
  const { deadline, onExpiry } = review;
  if (deadline === undefined && onExpiry === undefined) return null;
  if (deadline === undefined) {
    throw new InvalidDecision(
      `@Decision() of ${name} declares review.onExpiry without review.deadline: add a deadline (e.g. '48h'), or ` +
        'drop onExpiry.',
    );
  }
  const parsed = parseDuration(deadline, REVIEW_DEADLINE_BOUNDS);
  if ('problem' in parsed) {
    throw new InvalidDecision(`@Decision() of ${name} has an unusable review.deadline: ${parsed.problem}.`);
  }
  if (onExpiry === undefined) {
    throw new InvalidDecision(
      `@Decision() of ${name} declares review.deadline ${JSON.stringify(deadline)} without review.onExpiry: name ` +
        'the Outcome an expired Review resolves to (there is no default).',
    );
  }
  if (!outcomes.includes(onExpiry)) {
    throw new InvalidDecision(
      `@Decision() of ${name} has review.onExpiry ${JSON.stringify(onExpiry)}, which is not one of its outcomes ` +
        `(${outcomes.map((o) => JSON.stringify(o)).join(', ')}).`,
    );
  }
  if (review.outcomes.includes(onExpiry)) {
    throw new InvalidDecision(
      `@Decision() of ${name} has review.onExpiry ${JSON.stringify(onExpiry)}, which itself requires Review: an ` +
        'expired Review must resolve to an Outcome a person could settle on.',
    );
  }
  return { after: parsed.ms, declared: String(deadline), onExpiry };
}

/** The static metadata of a Decision class, or an InvalidDecision naming how to declare it. */
export function decisionMetadata(cls: Function): DecisionMetadata {
  const metadata = decisions.get(cls);
  if (!metadata) {
    throw new InvalidDecision(
      `${cls.name || 'This class'} is not a Decision: decorate it with @Decision({ outcomes, review, version }) ` +
        'and give it a decide(assessment, judgment) method.',
    );
  }
  return metadata;
}

/** Whether a class was declared with @Decision(). */
export function isDecision(cls: Function): cls is Type<Decision> {
  return decisions.has(cls);
}
