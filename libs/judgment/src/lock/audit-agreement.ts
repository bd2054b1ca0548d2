import type { CalibrationLock, LockedIdentity } from './calibration-lock';
import { type Interval, wilsonInterval } from './wilson-interval';

/** A resolved audit, as the agreement reads it from a record. */
export interface AuditedDecision {
  readonly judgment: string;
  readonly decision: string | null;
  readonly decisionVersion: string | null;
  readonly questionsFingerprint: string;
  readonly model: string | null;
  readonly language: string | null;
  /** The automatic Outcome that stood. */
  readonly outcome: string | null;
  /** The auditor's Outcome. */
  readonly auditResolution: string | null;
}

/** The audited accuracy of the automatic Outcomes under one identity, beside the lock's figure. */
export interface AuditAgreement {
  readonly judgment: string;
  readonly decision: string;
  readonly decisionVersion: string | null;
  readonly questions: string;
  readonly model: string;
  readonly audits: number;
  /** Audits whose auditor agreed with the automatic Outcome. */
  readonly agreed: number;
  readonly accuracy: number | null;
  /** Wilson 95 % interval of the audited accuracy. */
  readonly interval: Interval | null;
  /** The lock's accuracy and interval for this identity (null when the lock has none). */
  readonly lockedAccuracy: number | null;
  readonly lockedInterval: Interval | null;
  /** Whether the audited interval lies wholly below the lock's: the automatic Outcomes are worse than calibrated. */
  readonly dropped: boolean;
  /**
   * Fewer than MIN_CONCLUSIVE_AUDITS audits and not dropped: the interval is too wide to say the accuracy holds
   * (a drop this clear is still reported as dropped).
   */
  readonly inconclusive: boolean;
}

/**
 * Below this many audits an identity's verdict is "inconclusive" rather than "ok": the same rule as the calibration
 * report's small-sample warning, where a Wilson 95 % interval is still about ±10 points wide or more.
 */
export const MIN_CONCLUSIVE_AUDITS = 30;

/**
 * Groups resolved audits by identity (Judgment × Decision × version × Questions × model) and compares each group's
 * accuracy with the lock's: `dropped` when the audits' Wilson interval lies wholly below the lock's interval.
 */
export function auditAgreements(audits: readonly AuditedDecision[], lock: CalibrationLock | null): AuditAgreement[] {
  const groups = new Map<string, { first: AuditedDecision; audits: number; agreed: number }>();
  for (const audit of audits) {
    if (audit.decision === null || audit.model === null || audit.auditResolution === null) continue;
    const key = JSON.stringify([
      audit.judgment,
      audit.decision,
      audit.decisionVersion,
      audit.questionsFingerprint,
      audit.model,
    ]);
    const group = groups.get(key) ?? { first: audit, audits: 0, agreed: 0 };
    group.audits += 1;
    if (audit.auditResolution === audit.outcome) group.agreed += 1;
    groups.set(key, group);
  }
  return [...groups.values()].map(({ first, audits: count, agreed }) => {
    const locked = lockedIdentity(lock, first);
    const interval = wilsonInterval(agreed, count);
    const lockedInterval = locked?.accuracyInterval ?? null;
    const dropped = interval !== null && lockedInterval !== null && interval.high < lockedInterval.low;
    return {
      judgment: first.judgment,
      decision: first.decision as string,
      decisionVersion: first.decisionVersion,
      questions: first.questionsFingerprint,
      model: first.model as string,
      audits: count,
      agreed,
      accuracy: count === 0 ? null : agreed / count,
      interval,
      lockedAccuracy: locked?.accuracy ?? null,
      lockedInterval,
      dropped,
      inconclusive: !dropped && count < MIN_CONCLUSIVE_AUDITS,
    };
  });
}

function lockedIdentity(lock: CalibrationLock | null, audit: AuditedDecision): LockedIdentity | null {
  const entry = lock?.entry(audit.judgment, audit.decision as string, audit.decisionVersion);
  const candidates = (entry?.identities ?? []).filter(
    (identity) => identity.questions === audit.questionsFingerprint && identity.model === audit.model,
  );
  return candidates.find((identity) => identity.language === audit.language) ?? candidates[0] ?? null;
}
