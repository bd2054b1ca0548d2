import type { Assessment } from '../assessment/assessment';
import type { ReviewReason } from '../assessment/awaiting-review';
import type { Decision } from '../decision/decision.decorator';
import type { CascadeStep } from '../definition/cascade';
import type { Judgment } from '../definition/judgment.decorator';
import type { Outcome } from '../definition/outcome';
import type { EngineFailed } from '../errors';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import type { Reviewer } from '../persistence/reviewer';
import type { AuditAgreement } from '../lock/audit-agreement';
import type { SignalFigures } from '../lock/signal-figures';

/** An Engine answered (or the cache did) and the Assessment was recorded when persistence is on. */
export class AssessmentCompleted<J extends Judgment = Judgment> {
  static readonly NAME = 'judgment.assessment.completed';
  constructor(
    readonly judgment: J,
    readonly assessment: Assessment<J>,
    readonly record: AssessmentRecord | null,
  ) {}
}

/** An attempt failed; it was recorded (best-effort) as Unassessed. */
export class AssessmentFailed<J extends Judgment = Judgment> {
  static readonly NAME = 'judgment.assessment.failed';
  constructor(
    readonly judgment: J,
    readonly error: EngineFailed,
    readonly record: AssessmentRecord | null,
  ) {}
}

/**
 * `judge.dispatch()` handed the Judgment on: its assess job is queued (the job id), or, with the queue off, it ran
 * inline and is done (an `inline-…` id, after that job's own events). Not fired when dispatch() throws.
 */
export class AssessmentDispatched<J extends Judgment = Judgment> {
  static readonly NAME = 'judgment.assessment.dispatched';
  constructor(
    readonly judgment: J,
    /** The id dispatch() resolves to. */
    readonly jobId: string,
  ) {}
}

/**
 * A Decision was applied to a recorded (or Judge-produced) Assessment. Fires for every such decision, also when the
 * case is already in Review and keeps the reason that sent it there: act on `outcome` only when `awaitsReview` is false.
 */
export class AssessmentDecided<J extends Judgment = Judgment, O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.assessment.decided';
  constructor(
    readonly judgment: J,
    readonly assessment: Assessment<J>,
    readonly decision: Decision<J, O>,
    /** The Outcome the Decision gave: automatic only when `awaitsReview` is false. */
    readonly outcome: O,
    readonly record: AssessmentRecord | null,
    /** Why the case is in Review (a Review Outcome, calibration drift, …), or null when the Outcome acts. */
    readonly review: ReviewReason | null = null,
    /** The tier of the Judgment's escalation cascade that decided (its connection, its place), or null without one. */
    readonly tier: CascadeStep | null = null,
  ) {}

  /** Whether the case awaits a person instead of the Outcome acting (with or without a record). */
  get awaitsReview(): boolean {
    return this.review !== null;
  }
}

/**
 * A tier of an escalation cascade decided a Review Outcome and a tier follows: the case is asked of that tier instead
 * of going to Review. The next tier's decision is announced with its own AssessmentDecided (or AssessmentEscalated).
 */
export class AssessmentEscalated<J extends Judgment = Judgment, O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.assessment.escalated';
  constructor(
    readonly judgment: J,
    readonly assessment: Assessment<J>,
    readonly decision: Decision<J, O>,
    /** The Review Outcome this tier's answers were decided to. */
    readonly outcome: O,
    /** This tier's record (its decision is written with `decision_trace.escalated`), or null. */
    readonly record: AssessmentRecord | null,
    /** The tier that escalated. */
    readonly from: CascadeStep,
    /** The tier asked next. */
    readonly to: { readonly tier: number; readonly connection: string },
  ) {}
}

/** A case went to Review (once per record): a Review Outcome, or a guard sent an automatic Outcome there. */
export class ReviewRequested<J extends Judgment = Judgment, O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.review.requested';
  constructor(
    readonly judgment: J,
    readonly assessment: Assessment<J>,
    readonly outcome: O,
    readonly record: AssessmentRecord | null,
    readonly requestedAt: Date,
    /** Why the case is in Review. */
    readonly reason: ReviewReason,
  ) {}
}

/** A reviewer resolved a record in Review. The record keeps both the automatic Outcome and the Resolution. */
export class ReviewResolved<O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.review.resolved';
  constructor(
    readonly record: AssessmentRecord,
    /** The automatic Outcome that sent the record to Review. */
    readonly outcome: O,
    readonly resolution: O,
    readonly reviewer: Reviewer,
  ) {}
}

/** A reviewer took the claim on a record in Review (not fired when the holder renews the lease). */
export class ReviewClaimed {
  static readonly NAME = 'judgment.review.claimed';
  constructor(
    readonly record: AssessmentRecord,
    readonly reviewer: Reviewer,
    /** When the lease ends unless renewed. */
    readonly expiresAt: Date,
  ) {}
}

/** The holder released its claim on a record in Review; anyone may claim it now. */
export class ReviewReleased {
  static readonly NAME = 'judgment.review.released';
  constructor(
    readonly record: AssessmentRecord,
    readonly reviewer: Reviewer,
  ) {}
}

/**
 * Nobody resolved a record before its Decision's review deadline: the system resolved it with the Decision's
 * `onExpiry` Outcome (resolver `system` #`deadline`). ReviewResolved follows, with the system as the reviewer.
 */
export class ReviewExpired<O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.review.expired';
  readonly reason = 'deadline' as const;
  constructor(
    readonly record: AssessmentRecord,
    /** The automatic Outcome that sent the record to Review. */
    readonly outcome: O,
    /** The Decision's `onExpiry` Outcome the record was resolved with. */
    readonly resolution: O,
    readonly deadlineAt: Date,
  ) {}
}

/**
 * A Judgment's Review backlog is forecast to let cases reach their review deadline unresolved (`forecast.atRisk` of
 * them) at the last 24 h's arrival and resolution rates (BACKLOG_FORECAST_METHOD). Checked with each review-deadline
 * sweep; fires once when the risk begins in a process, again only after a forecast with none at risk.
 */
export class ReviewBacklogAtRisk {
  static readonly NAME = 'judgment.review.backlog-at-risk';
  constructor(
    readonly forecast: ReviewBacklogForecast,
    /** When the forecast was made. */
    readonly at: Date,
  ) {}

  get judgment(): string {
    return this.forecast.judgment;
  }
}

/** What ReviewBacklogAtRisk carries: a Judgment's Review backlog forecast over its deadline horizon (`forecastBacklog`). */
export interface ReviewBacklogForecast {
  readonly judgment: string;
  /** The review deadline the horizon is, as declared (e.g. `'48h'`), or null. */
  readonly deadline: string | null;
  /** Cases in Review now, and how many of them have a deadline. */
  readonly inReview: number;
  readonly withDeadline: number;
  readonly arrivalsPerHour: number;
  readonly resolutionsPerHour: number;
  /** The deadline horizon, in hours (null: no deadline, so nothing expires). */
  readonly horizonHours: number | null;
  /** Cases forecast in Review at the end of the horizon (in Review now + arrivals − resolutions, not below 0). */
  readonly backlogAtHorizon: number | null;
  /** Cases in Review now forecast to reach their deadline unresolved. */
  readonly expiringInReview: number;
  /** Cases arriving within the horizon forecast to reach their deadline unresolved (rounded down). */
  readonly expiringArrivals: number;
  /** Both: the cases forecast to expire unresolved. */
  readonly atRisk: number;
}

/** The identity a decision ran under, as the drift guard compares it with the calibration lock. */
export interface DecisionIdentity {
  readonly judgment: string;
  readonly decision: string;
  readonly decisionVersion: string | null;
  /** The full fingerprint of the Questions asked. */
  readonly questions: string;
  /** The versioned model the Engine reported. */
  readonly model: string;
  readonly language: string | null;
  readonly thresholds: Readonly<Record<string, number>> | null;
}

/**
 * A decision ran under an identity the calibration lock does not vouch for (another model, other Questions, another
 * Decision version or thresholds, or no lock entry). Fires once per new identity per process, whatever `onDrift`
 * says ('review' also sends the automatic Outcomes of that identity to Review; 'warn' only announces and logs).
 */
export class CalibrationDrifted {
  static readonly NAME = 'judgment.calibration.drifted';
  constructor(
    readonly identity: DecisionIdentity,
    /** Why the identity is not the locked one, in one sentence. */
    readonly reason: string,
    readonly policy: 'review' | 'warn',
    /** The lock file compared with. */
    readonly lock: string,
    /** The record of the decision that first showed the drift, or null. */
    readonly record: AssessmentRecord | null,
  ) {}
}

/**
 * The answers of a connection and model stopped carrying the signal they had when calibrated: over its recent
 * answers, far more are near-certain and their entropy fell (the rule of `collapseReason`). Fires once when the
 * collapse begins in a process, again only after it ended; with `calibration.onDrift: 'review'` the automatic Outcomes
 * decided on its answers go to Review while it lasts.
 */
export class SignalCollapsed {
  static readonly NAME = 'judgment.signal.collapsed';
  constructor(
    readonly connection: string,
    readonly model: string,
    /** Why, in one sentence with the figures. */
    readonly reason: string,
    /** The recent answers' figures, and the calibration run's they were compared with. */
    readonly live: SignalFigures,
    readonly calibrated: SignalFigures,
    readonly policy: 'review' | 'warn',
    /** The lock file the calibrated figures come from. */
    readonly lock: string,
  ) {}
}

/** An automatic Outcome was sampled for an audit: it stands (its Actions run), and a reviewer is asked to check it. */
export class AuditRequested<J extends Judgment = Judgment, O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.audit.requested';
  constructor(
    readonly judgment: J,
    readonly assessment: Assessment<J>,
    readonly outcome: O,
    readonly record: AssessmentRecord,
  ) {}
}

/** A reviewer audited an automatic Outcome: `agreed` when their Outcome is the automatic one. */
export class AuditResolved<O extends Outcome = Outcome> {
  static readonly NAME = 'judgment.audit.resolved';
  constructor(
    readonly record: AssessmentRecord,
    readonly outcome: O,
    readonly auditOutcome: O,
    readonly reviewer: Reviewer,
  ) {}

  get agreed(): boolean {
    return this.outcome === this.auditOutcome;
  }
}

/**
 * The audited accuracy of an identity's automatic Outcomes fell below its calibration: the Wilson interval of the
 * resolved audits lies wholly below the lock's accuracy interval (the rule `judgment audit` exits 1 on).
 */
export class AgreementDropped {
  static readonly NAME = 'judgment.audit.agreement-dropped';
  constructor(
    readonly agreement: AuditAgreement,
    /** The audit whose resolution showed the drop. */
    readonly record: AssessmentRecord,
  ) {}
}

/** One reviewer's vote on an N-of-M Review, as recorded (hidden from other reviewers until they vote). */
export interface ReviewVote {
  readonly reviewer: { readonly type: string; readonly id: string };
  readonly outcome: string;
  readonly createdAt: Date;
}

/** A reviewer cast one of the independent Resolutions an N-of-M Review needs (`review: { reviewers }`). */
export class ReviewVoteCast {
  static readonly NAME = 'judgment.review.vote-cast';
  constructor(
    readonly record: AssessmentRecord,
    readonly outcome: Outcome,
    readonly reviewer: Reviewer,
    /** Votes cast so far, this one included. */
    readonly cast: number,
    /** Votes the Decision requires. */
    readonly required: number,
  ) {}
}

/** The required votes agreed: the record is resolved with their Outcome (ReviewResolved follows). */
export class ReviewAgreed {
  static readonly NAME = 'judgment.review.agreed';
  constructor(
    readonly record: AssessmentRecord,
    readonly resolution: Outcome,
    readonly votes: readonly ReviewVote[],
  ) {}
}

/** The required votes disagree: the record stays in Review until a reviewer the policy's canAdjudicate allows settles it. */
export class ReviewAdjudicationNeeded {
  static readonly NAME = 'judgment.review.adjudication-needed';
  constructor(
    readonly record: AssessmentRecord,
    readonly votes: readonly ReviewVote[],
  ) {}
}

/** An adjudicator settled a disagreement: the record is resolved with their Outcome (ReviewResolved follows). */
export class ReviewAdjudicated {
  static readonly NAME = 'judgment.review.adjudicated';
  constructor(
    readonly record: AssessmentRecord,
    readonly resolution: Outcome,
    readonly adjudicator: Reviewer,
    readonly votes: readonly ReviewVote[],
  ) {}
}

export type JudgmentEvent =
  | AssessmentCompleted
  | AssessmentFailed
  | AssessmentDispatched
  | AssessmentDecided
  | AssessmentEscalated
  | ReviewRequested
  | ReviewResolved
  | ReviewVoteCast
  | ReviewAgreed
  | ReviewAdjudicationNeeded
  | ReviewAdjudicated
  | ReviewClaimed
  | ReviewReleased
  | ReviewExpired
  | ReviewBacklogAtRisk
  | CalibrationDrifted
  | SignalCollapsed
  | AuditRequested
  | AuditResolved
  | AgreementDropped;
