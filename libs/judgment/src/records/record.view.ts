import type { ReviewCause } from '../assessment/awaiting-review';
import type { DecisionTrace } from '../decision/decision-trace';
import type { CostBasis } from '../engines/pricing/round-cost';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { questionModelsOf } from '../persistence/question-models';

/** Untrusted end-user text in a record's Evidence, marked as the Engine was told to treat it. */
export interface UntrustedTextView {
  readonly untrusted: true;
  readonly text: string;
}

/** Where a record stands. */
export type RecordState = 'unassessed' | 'undecided' | 'decided' | 'awaiting_review' | 'resolved';

/** A record in the Review list. */
export interface RecordSummary {
  readonly id: number;
  readonly judgment: string;
  readonly subject: { readonly type: string; readonly id: string } | null;
  readonly state: RecordState;
  /** The automatic Outcome. */
  readonly outcome: string | null;
  readonly decision: { readonly name: string; readonly version: string | null } | null;
  readonly reviewRequestedAt: string | null;
  /** What sent the record to Review: `band` (a Review Outcome), `drift`, `collapse`; null when never in Review. */
  readonly reviewCause: ReviewCause | null;
  /** When the Review resolves to the Decision's onExpiry Outcome; null without a deadline. */
  readonly reviewDeadlineAt: string | null;
  /** The least |value − threshold| the Decision compared (small: a close call); null when it compared none. */
  readonly decisionMargin: number | null;
  /** The live claim (holder and lease expiry), or null when nobody holds one. */
  readonly claim: {
    readonly holder: { readonly type: string; readonly id: string };
    readonly expiresAt: string;
  } | null;
  readonly createdAt: string;
}

/** The audit of an automatic Outcome sampled for one: the Outcome still stands; the auditor says whether it was right. */
export interface AuditView {
  readonly requestedAt: string;
  /** The auditor's Outcome (the automatic one when it was right); null until audited. */
  readonly resolution: string | null;
  readonly auditor: { readonly type: string; readonly id: string } | null;
  readonly auditedAt: string | null;
}

/** A record in the audit list: its summary and its audit. */
export interface AuditSummary extends RecordSummary {
  readonly audit: AuditView;
}

/** One record in full: what the Engine saw and answered, the automatic Outcome, the Review and the Provenance. */
export interface RecordDetail extends RecordSummary {
  /** The Evidence as stored, untrusted text marked `{ untrusted: true, text }`; null when evidence storage is off. */
  readonly evidence: unknown;
  readonly untrustedPaths: readonly string[];
  readonly language: string | null;
  /** The answers as recorded (Likelihood: p; Classification: label → p; Rating: p per level; Set: label → p). */
  readonly answers: Record<string, unknown> | null;
  readonly failure: { readonly type: string; readonly message: string | null } | null;
  readonly outcomeType: string | null;
  /** How the automatic Outcome was reached: the rule that fired, the answers read, each threshold compared. */
  readonly trace: DecisionTrace | null;
  readonly review: {
    readonly requestedAt: string;
    /** Why the record is in Review: the cause, and the reason in words. */
    readonly cause: ReviewCause;
    readonly reason: string;
    readonly resolution: string | null;
    readonly resolver: { readonly type: string; readonly id: string } | null;
    readonly resolvedAt: string | null;
    /** Seconds the resolver spent on the case, from taking the claim to the Resolution; null without a claim. */
    readonly timeSpentSeconds: number | null;
  } | null;
  /** The audit, when the automatic Outcome was sampled for one; null otherwise. */
  readonly audit: AuditView | null;
  readonly provenance: {
    readonly engine: string;
    readonly model: string | null;
    readonly requestId: string | null;
    /** The model that answered each Question, when the Engine reported one per Question (else empty). */
    readonly questionModels: Record<string, string>;
    readonly details: Record<string, unknown>;
  } | null;
  readonly cachedFromId: number | null;
  /**
   * What the record's round cost at its connection's price (`amount` null when unknown or unpriced: `basis.note` says
   * why); null for a record written before costs were kept.
   */
  readonly cost: {
    readonly amount: number | null;
    readonly currency: string | null;
    readonly basis: CostBasis;
  } | null;
  readonly questionsFingerprint: string;
  readonly evidenceFingerprint: string;
}

export function recordState(record: AssessmentRecord): RecordState {
  if (record.isUnassessed()) return 'unassessed';
  if (record.isResolved()) return 'resolved';
  if (record.isAwaitingReview()) return 'awaiting_review';
  return record.outcome === null ? 'undecided' : 'decided';
}

export function recordSummary(record: AssessmentRecord): RecordSummary {
  return {
    id: record.id,
    judgment: record.judgment,
    subject:
      record.subjectType !== null && record.subjectId !== null
        ? { type: record.subjectType, id: record.subjectId }
        : null,
    state: recordState(record),
    outcome: record.outcome,
    decision: record.decision === null ? null : { name: record.decision, version: record.decisionVersion },
    reviewRequestedAt: iso(record.reviewRequestedAt),
    reviewCause: record.reviewReasonOf()?.cause ?? null,
    reviewDeadlineAt: iso(record.reviewDeadlineAt),
    decisionMargin: record.decisionMargin ?? null,
    claim: liveClaim(record),
    createdAt: iso(record.createdAt) as string,
  };
}

export function recordDetail(record: AssessmentRecord): RecordDetail {
  return {
    ...recordSummary(record),
    evidence: record.evidence === null ? null : markUntrusted(record.evidence, new Set(record.untrustedPaths)),
    untrustedPaths: record.untrustedPaths,
    language: record.language,
    answers: record.answers,
    failure: record.failureType === null ? null : { type: record.failureType, message: record.failureMessage },
    outcomeType: record.outcomeType,
    trace: record.decisionTrace ?? null,
    review:
      record.reviewRequestedAt === null
        ? null
        : {
            requestedAt: iso(record.reviewRequestedAt) as string,
            ...reviewReasonView(record),
            resolution: record.resolution,
            resolver:
              record.resolverType !== null && record.resolverId !== null
                ? { type: record.resolverType, id: record.resolverId }
                : null,
            resolvedAt: iso(record.resolvedAt),
            timeSpentSeconds: record.reviewSeconds(),
          },
    audit: auditView(record),
    provenance:
      record.engine === null
        ? null
        : {
            engine: record.engine,
            model: record.model,
            requestId: record.requestId,
            questionModels: questionModelsOf(record.provenanceDetails ?? {}),
            details: record.provenanceDetails ?? {},
          },
    cachedFromId: record.cachedFromId,
    cost:
      record.costBasis === null
        ? null
        : { amount: record.cost, currency: record.costCurrency, basis: record.costBasis },
    questionsFingerprint: record.questionsFingerprint,
    evidenceFingerprint: record.evidenceFingerprint,
  };
}

function reviewReasonView(record: AssessmentRecord): { cause: ReviewCause; reason: string } {
  const reason = record.reviewReasonOf() ?? { cause: 'band' as const, text: '' };
  return { cause: reason.cause, reason: reason.text };
}

/** A record sampled for an audit, as the audit list shows it. */
export function auditSummary(record: AssessmentRecord): AuditSummary {
  return { ...recordSummary(record), audit: auditView(record) as AuditView };
}

function auditView(record: AssessmentRecord): AuditView | null {
  if (record.auditRequestedAt === null) return null;
  return {
    requestedAt: iso(record.auditRequestedAt) as string,
    resolution: record.auditResolution,
    auditor:
      record.auditResolverType !== null && record.auditResolverId !== null
        ? { type: record.auditResolverType, id: record.auditResolverId }
        : null,
    auditedAt: iso(record.auditedAt),
  };
}

/**
 * The stored Evidence with each untrusted path's text replaced by `{ untrusted: true, text }`. Paths are built as
 * the package builds them when recording (keys joined with dots, list indexes as numbers), so they match exactly.
 */
export function markUntrusted(evidence: unknown, untrustedPaths: ReadonlySet<string>, path = ''): unknown {
  if (typeof evidence === 'string' && untrustedPaths.has(path)) {
    return { untrusted: true, text: evidence } satisfies UntrustedTextView;
  }
  if (Array.isArray(evidence)) {
    return evidence.map((item, index) => markUntrusted(item, untrustedPaths, join(path, String(index))));
  }
  if (evidence !== null && typeof evidence === 'object') {
    return Object.fromEntries(
      Object.entries(evidence).map(([key, value]) => [key, markUntrusted(value, untrustedPaths, join(path, key))]),
    );
  }
  return evidence;
}

function liveClaim(record: AssessmentRecord): RecordSummary['claim'] {
  const claim = record.isAwaitingReview() ? record.liveClaim() : null;
  return claim ? { holder: claim.holder, expiresAt: claim.expiresAt.toISOString() } : null;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function iso(date: Date | string | null): string | null {
  if (date === null) return null;
  return (date instanceof Date ? date : new Date(date)).toISOString();
}
