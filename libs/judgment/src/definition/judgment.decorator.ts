import type { Type } from '@nestjs/common';
import { InvalidJudgment } from '../errors';
import { type CascadeTier, checkedCascade } from './cascade';
import type { EvidenceMap } from './evidence';
import type { QuestionMap } from '../questions/question';

/**
 * A Judgment: constructed with its Subject, it shows explicit Evidence and asks typed Questions about it.
 * Optional methods override the static options of `@Judgment()` per instance.
 */
export interface Judgment {
  evidence(): EvidenceMap;
  questions(): QuestionMap;
  /** The Evidence's language: recorded and used to group calibration, never sent to the Engine. */
  language?(): string | null | undefined;
  /** The Subject to record against (default: the single TypeORM entity among the instance's own properties). */
  subject?(): object | null | undefined;
  /** Cache the Assessment for this many seconds (opt-in). */
  cacheFor?(): number | null | undefined;
  /** The Engine connection to ask (default: the module's default connection). */
  engine?(): string | null | undefined;
}

/** A class constructing Judgments. */
export type JudgmentClass<J extends Judgment = Judgment> = Type<J> | (abstract new (...args: any[]) => J);

/** A class reference, or a thunk returning it (for classes that refer to each other). */
export type ClassRef<T> = Type<T> | (() => Type<T>);

/**
 * How the review desk's queue summarises a record's Subject in one line: the Subject entity, loaded by the key the
 * record stored, in; a short string out (cut to REVIEW_SUMMARY_MAX characters). Throwing shows the record id instead.
 */
export type ReviewSummary<S = any> = (subject: S) => string;

/** The longest review summary the queue shows; a longer one is cut with an ellipsis. */
export const REVIEW_SUMMARY_MAX = 120;

/**
 * Static options of a Judgment class (`S`: its Subject entity, typed for `reviewSummary`; `D`: its default Decision,
 * which types the cascade's threshold names).
 */
export interface JudgmentOptions<S = any, D = unknown> {
  /** Stable name stored in records, queue payloads and CLI arguments. Default: the class name. */
  name?: string;
  /** The default Decision applied by `assessment.outcome()`. */
  decision?: ClassRef<D>;
  /**
   * An escalation cascade, cheapest first: the first tier's connection is asked; a case its answers decide in the
   * Decision's Review band is asked of the next tier (decided with that tier's thresholds) instead of going to Review;
   * after the last tier, Review. Needs `decision`; replaces `engine`.
   */
  cascade?: readonly CascadeTier<NoInfer<D>>[];
  /** Cache Assessments for this many seconds (opt-in; 0 looks the cache up but stores nothing). */
  cacheFor?: number;
  /** The Engine connection to ask. */
  engine?: string;
  /** This Judgment's Evidence size limit per round, in bytes of JSON, instead of the module's `maxEvidenceBytes`. */
  maxEvidenceBytes?: number;
  /**
   * The one-line summary of a Subject in the review desk's queue, e.g. `(listing: Listing) => listing.title`.
   * Default: the Subject's entity name and key and its first short text field.
   */
  reviewSummary?: ReviewSummary<S>;
}

/** Resolved static metadata of a Judgment class. */
export interface JudgmentMetadata {
  readonly name: string;
  readonly decision: Type<unknown> | null;
  readonly cacheFor: number | null;
  readonly engine: string | null;
  readonly maxEvidenceBytes: number | null;
  readonly reviewSummary: ReviewSummary | null;
  /** The escalation cascade's tiers, or null without one. */
  readonly cascade: readonly CascadeTier[] | null;
}

const judgments = new WeakMap<Function, JudgmentOptions & { checkedCascade?: readonly CascadeTier[] }>();

/** Declares a Judgment class with its stable name and static options. */
export function Judgment<S = any, D = unknown>(options: JudgmentOptions<S, D> = {}): ClassDecorator {
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name.trim() === '')) {
    throw new InvalidJudgment('@Judgment({ name }) must be a non-blank string.');
  }
  if (options.cacheFor !== undefined && !(Number.isFinite(options.cacheFor) && options.cacheFor >= 0)) {
    throw new InvalidJudgment(
      `@Judgment({ cacheFor }) must be a number of seconds ≥ 0; got ${String(options.cacheFor)}.`,
    );
  }
  if (options.engine !== undefined && (typeof options.engine !== 'string' || options.engine.trim() === '')) {
    throw new InvalidJudgment('@Judgment({ engine }) must be the non-blank name of an Engine connection.');
  }
  if (
    options.maxEvidenceBytes !== undefined &&
    !(Number.isSafeInteger(options.maxEvidenceBytes) && options.maxEvidenceBytes > 0)
  ) {
    throw new InvalidJudgment(
      `@Judgment({ maxEvidenceBytes }) must be a whole number of bytes above 0; got ${String(options.maxEvidenceBytes)}.`,
    );
  }
  if (options.reviewSummary !== undefined && typeof options.reviewSummary !== 'function') {
    throw new InvalidJudgment(
      '@Judgment({ reviewSummary }) must be a function from the Subject to a line of text: (subject) => subject.title.',
    );
  }
  if (options.decision !== undefined && typeof options.decision !== 'function') {
    throw new InvalidJudgment(
      '@Judgment({ decision }) must be a Decision class, or a thunk returning it: () => MyDecision.',
    );
  }
  return (target) => {
    const name = options.name ?? target.name;
    const cascade =
      options.cascade === undefined
        ? undefined
        : checkedCascade(name, options.cascade, { decision: options.decision, engine: options.engine });
    judgments.set(target, { ...(options as JudgmentOptions), checkedCascade: cascade });
  };
}

/** Whether a class was declared with @Judgment() (its own decorator, not a parent's). */
export function isDecoratedJudgment(cls: Function): boolean {
  return judgments.has(cls);
}

/** The static metadata of a Judgment class (undecorated classes get their class name and no options). */
export function judgmentMetadata(cls: Function): JudgmentMetadata {
  const options = judgments.get(cls) ?? {};
  return {
    name: options.name ?? cls.name,
    decision: options.decision ? resolveClassRef(options.decision) : null,
    cacheFor: options.cacheFor ?? null,
    // A cascade's first tier is the connection asked first: what every reader of `engine` means.
    engine: options.engine ?? options.checkedCascade?.[0].connection ?? null,
    maxEvidenceBytes: options.maxEvidenceBytes ?? null,
    reviewSummary: options.reviewSummary ?? null,
    cascade: options.checkedCascade ?? null,
  };
}

/** The registered name of a Judgment instance or class. */
export function judgmentName(judgment: Judgment | Function): string {
  const cls = typeof judgment === 'function' ? judgment : judgment.constructor;
  return judgmentMetadata(cls).name;
}

/** A class, or the class a thunk returns (classes have a prototype; arrow thunks do not). */
export function resolveClassRef<T>(ref: ClassRef<T>): Type<T> {
  return (ref.prototype === undefined ? (ref as () => Type<T>)() : ref) as Type<T>;
}
