import { InvalidAuditPlan } from '../errors';
import { clopperPearsonUpper } from './binomial';

/** What an audit plan must show, and what it starts from. */
export interface AuditPlanOptions {
  /** Largest error rate of the automatic Outcomes to show, in (0, 1), e.g. 0.01. */
  readonly maxError: number;
  /** Probability the error rate is at most maxError once the audits are in, in (0, 1) (default 0.95). */
  readonly confidence?: number;
  /** Audits resolved so far, and how many found the automatic Outcome wrong. */
  readonly audits?: number;
  readonly errors?: number;
  /** Automatic Outcomes per day at the recorded traffic (null when none is recorded). */
  readonly automaticPerDay?: number | null;
  /** In how many days the audits should be in (default 30). */
  readonly days?: number;
}

/** How many audits a target needs, how many more, and at which audit rate they come in time. */
export interface AuditPlan {
  readonly maxError: number;
  readonly confidence: number;
  /** Audits needed with none wrong: the least n whose one-sided Clopper–Pearson bound at 0 errors is ≤ maxError. */
  readonly cleanAuditsNeeded: number;
  readonly audits: number;
  readonly errors: number;
  /**
   * The audits needed in all at the current error count, when every further audit is clean: the least n whose
   * Clopper–Pearson bound with `errors` wrong is ≤ maxError.
   */
  readonly auditsNeeded: number;
  /** auditsNeeded − audits, at least 0. */
  readonly moreAudits: number;
  /** The one-sided Clopper–Pearson upper bound of the error rate now (null: no audit yet, no data). */
  readonly currentBound: number | null;
  /** errors / audits (null: no data). */
  readonly currentError: number | null;
  /** Whether the audits so far already show the target. */
  readonly met: boolean;
  readonly days: number;
  readonly automaticPerDay: number | null;
  /**
   * The share of automatic Outcomes to audit to get moreAudits in `days` at the recorded traffic (null without
   * traffic); above 1 when even auditing every automatic Outcome would not be enough in time.
   */
  readonly auditRate: number | null;
}

/** Default horizon of a plan, in days. */
export const DEFAULT_PLAN_DAYS = 30;

/**
 * Plans audits with exact binomial (Clopper–Pearson) bounds: the least number of audits, all clean, that shows an
 * error rate ≤ maxError at the confidence (299 at 1 % / 95 %, 59 at 5 % / 95 %); the least in all at the current
 * error count, assuming the rest clean; and the audit rate that brings the missing ones in `days` days.
 */
export function planAudits(options: AuditPlanOptions): AuditPlan {
  const maxError = options.maxError;
  const confidence = options.confidence ?? 0.95;
  const audits = options.audits ?? 0;
  const errors = options.errors ?? 0;
  const days = options.days ?? DEFAULT_PLAN_DAYS;
  const automaticPerDay = options.automaticPerDay ?? null;
  open(maxError, 'maxError (--max-error)', '0.01');
  open(confidence, 'confidence (--confidence)', '0.95');
  if (!Number.isFinite(days) || days <= 0) {
    throw new InvalidAuditPlan(`days (--days) must be a number above 0 (e.g. 30); got ${JSON.stringify(days)}.`);
  }
  if (!Number.isInteger(audits) || !Number.isInteger(errors) || audits < 0 || errors < 0 || errors > audits) {
    throw new InvalidAuditPlan(
      `audits and errors must be whole numbers with 0 ≤ errors ≤ audits; got ${audits} audits, ${errors} errors.`,
    );
  }
  if (automaticPerDay !== null && !(automaticPerDay >= 0)) {
    throw new InvalidAuditPlan(`automaticPerDay must be 0 or more; got ${JSON.stringify(automaticPerDay)}.`);
  }
  const auditsNeeded = auditsNeededFor(errors, maxError, confidence);
  const moreAudits = Math.max(0, auditsNeeded - audits);
  const currentBound = audits === 0 ? null : clopperPearsonUpper(errors, audits, confidence);
  return {
    maxError,
    confidence,
    cleanAuditsNeeded: auditsNeededFor(0, maxError, confidence),
    audits,
    errors,
    auditsNeeded,
    moreAudits,
    currentBound,
    currentError: audits === 0 ? null : errors / audits,
    met: currentBound !== null && currentBound <= maxError,
    days,
    automaticPerDay,
    auditRate: automaticPerDay === null || automaticPerDay === 0 ? null : moreAudits / (automaticPerDay * days),
  };
}

/**
 * The least n with the one-sided Clopper–Pearson bound of `errors` wrong in n at `confidence` ≤ maxError. With no
 * error the bound is 1 − (1 − confidence)^(1/n), so n = ⌈ln(1 − confidence) / ln(1 − maxError)⌉; with errors, a
 * search (the bound falls as n grows).
 */
export function auditsNeededFor(errors: number, maxError: number, confidence: number): number {
  const meets = (n: number) => clopperPearsonUpper(errors, n, confidence) <= maxError;
  let high = Math.max(errors + 1, Math.ceil(Math.log(1 - confidence) / Math.log(1 - maxError)));
  while (!meets(high)) high *= 2;
  let low = errors; // never meets: the bound is 1 when every audit is wrong
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (meets(middle)) high = middle;
    else low = middle;
  }
  return high;
}

function open(value: unknown, name: string, example: string): void {
  if (typeof value !== 'number' || !(value > 0 && value < 1)) {
    throw new InvalidAuditPlan(
      `${name} must be a number strictly between 0 and 1 (e.g. ${example}); got ${JSON.stringify(value)}.`,
    );
  }
}
