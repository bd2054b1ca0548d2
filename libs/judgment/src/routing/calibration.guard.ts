import { Inject, Injectable, type Type } from '@nestjs/common';
import { resolve } from 'node:path';
import type { Assessment } from '../assessment/assessment';
import { type Decision, type DecisionMetadata, decisionMetadata } from '../decision/decision.decorator';
import { decisionThresholds } from '../decision/thresholds';
import { judgmentMetadata, judgmentName } from '../definition/judgment.decorator';
import { InvalidCalibrationLock } from '../errors';
import { CalibrationDrifted, type DecisionIdentity } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { DriftPolicy, ResolvedJudgmentOptions } from '../judgment.options';
import type { GuardFinding } from '../decision/decision-plan';
import { CalibrationLock, type LockedDecision, type LockedTier, lockKey } from '../lock/calibration-lock';
import type { CascadeStep, CascadeTier } from '../definition/cascade';
import { JudgmentLogger } from '../logging/judgment.logger';
import type { AssessmentRecord } from '../persistence/assessment-record.entity';
import { questionsFingerprint } from '../questions/questions-fingerprint';
import { JudgmentRegistry } from '../registry/judgment.registry';

/** A decision's identity the lock does not vouch for, and what the guard does about it. */
export interface Drift {
  readonly identity: DecisionIdentity;
  readonly reason: string;
  readonly policy: 'review' | 'warn';
  /** Whether this process sees this identity drift for the first time (the event fires then). */
  readonly first: boolean;
}

/** A Decision at startup with no lock entry, or one that no longer matches it. */
export interface LockProblem {
  readonly judgment: string;
  readonly decision: string;
  readonly version: string | null;
  readonly problem: string;
}

/**
 * The drift guard: compares each decision's identity (model, Questions fingerprint, language, Decision version and
 * thresholds) with the calibration lock of the module option `calibration.lock`. It owns the once-per-identity
 * announcement (CalibrationDrifted and a warning), and says whether an automatic Outcome must go to Review instead.
 */
@Injectable()
export class CalibrationGuard {
  private readonly lock: CalibrationLock | null;
  private readonly policy: DriftPolicy;
  private readonly seen = new Set<string>();

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    private readonly registry: JudgmentRegistry,
    private readonly events: JudgmentEventsPublisher,
    private readonly logger: JudgmentLogger,
  ) {
    const { lock: path, onDrift } = options.calibration;
    this.policy = onDrift;
    // A lock not written yet vouches for nothing (every Decision is listed, and drifts), so that the first
    // `judgment eval --lock` can boot the app that writes it.
    this.lock = path === null || this.policy === 'off' ? null : CalibrationLock.readOrEmpty(resolve(path));
  }

  /** The lock decisions are checked against, or null. */
  get calibrationLock(): CalibrationLock | null {
    return this.lock;
  }

  /**
   * At startup: refuses a lock naming a Judgment the app does not register, and lists each registered Judgment's
   * Decision that has no lock entry or a stale one (other thresholds than the lock's).
   */
  problems(decisionOf: (cls: Type<Decision>) => Decision): LockProblem[] {
    const lock = this.lock;
    if (!lock) return [];
    for (const name of lock.judgmentNames()) {
      if (!this.registry.hasJudgment(name)) {
        throw new InvalidCalibrationLock(
          lock.file,
          `judgments.${name}`,
          `names the Judgment "${name}", which this app does not register (registered: ` +
            `${
              this.registry
                .judgments()
                .map((cls) => judgmentName(cls))
                .join(', ') || 'none'
            }): remove the entry or ` +
            'register the Judgment with JudgmentModule.forFeature([...]).',
        );
      }
    }
    const problems: LockProblem[] = [];
    for (const cls of this.registry.judgments()) {
      const decisionClass = judgmentMetadata(cls).decision;
      if (!decisionClass) continue;
      const judgment = judgmentName(cls);
      const metadata = decisionMetadata(decisionClass);
      const entry = lock.entry(judgment, metadata.name, metadata.version);
      const instance = decisionOf(decisionClass as Type<Decision>);
      const problem = entry
        ? (thresholdsProblem(entry, decisionThresholds(instance)) ??
          cascadeProblem(judgment, entry, judgmentMetadata(cls).cascade ?? null, instance))
        : missingProblem(lock, judgment, metadata);
      if (problem) problems.push({ judgment, decision: metadata.name, version: metadata.version, problem });
    }
    return problems;
  }

  /**
   * Compares a decision with the lock: null when it runs under a locked identity (or no lock is set), else the drift.
   * Every model that answered in the round is compared (an `openai` round asks each Question in its own request), so a
   * Question answered by a model the lock does not name is drift even when the first one was. The first time an
   * identity drifts in this process it is logged as `Calibration drifted.`.
   */
  check(
    assessment: Assessment<any>,
    decision: Decision,
    metadata: DecisionMetadata,
    /** The cascade tier this decision is made at (its answers are checked against that tier's lock), else null. */
    tier: CascadeStep | null = null,
  ): Drift | null {
    const lock = this.lock;
    if (!lock || this.policy === 'off') return null;
    const { provenance } = assessment;
    const base = {
      judgment: judgmentName(assessment.judgment),
      decision: metadata.name,
      decisionVersion: metadata.version,
      questions: questionsFingerprint(assessment.questions),
      language: assessment.judgment.language?.() ?? null,
      thresholds: decisionThresholds(decision),
    };
    const models = provenance.models();
    for (const model of models) {
      const identity: DecisionIdentity = { ...base, model };
      const answered =
        models.length === 1
          ? null
          : Object.keys(assessment.questions).filter((key) => provenance.modelOf(key) === model);
      const reason = driftReason(lock, identity, answered, tier);
      if (reason !== null) return this.drifted(assessment, identity, reason);
    }
    return null;
  }

  /** What the guard found, as the decision plan reads it. */
  finding(drift: Drift): GuardFinding {
    return { cause: 'drift', text: `Calibration drift: ${drift.reason}`, sendsToReview: drift.policy === 'review' };
  }

  private drifted(assessment: Assessment<any>, identity: DecisionIdentity, reason: string): Drift {
    const key = JSON.stringify([identity, reason]);
    const first = !this.seen.has(key);
    if (first) {
      this.seen.add(key);
      this.logger.warn('Calibration drifted.', {
        ...assessment.logContext(),
        decision: identity.decision,
        model: identity.model,
        reason,
        on_drift: this.policy,
      });
    }
    return { identity, reason, policy: this.policy as Drift['policy'], first };
  }

  /** Announces a drift the first time its identity drifts in this process. */
  async announce(drift: Drift, record: AssessmentRecord | null): Promise<void> {
    if (!drift.first || !this.lock) return;
    await this.events.emit(new CalibrationDrifted(drift.identity, drift.reason, drift.policy, this.lock.file, record));
  }
}

function missingProblem(
  lock: CalibrationLock,
  judgment: string,
  metadata: Pick<DecisionMetadata, 'name' | 'version'>,
): string {
  const others = lock
    .entries(judgment)
    .filter((entry) => entry.decision === metadata.name)
    .map((entry) => lockKey(entry.decision, entry.version));
  return others.length
    ? `the lock calibrated ${others.join(', ')}, not ${lockKey(metadata.name, metadata.version)}: run ` +
        `\`judgment eval ${judgment} --lock\` for the new version.`
    : `no lock entry: run \`judgment eval ${judgment} --lock\` and commit the lock.`;
}

function thresholdsProblem(entry: LockedDecision, thresholds: Readonly<Record<string, number>> | null): string | null {
  if (sameThresholds(entry.thresholds, thresholds)) return null;
  return (
    `the thresholds ${JSON.stringify(thresholds)} differ from the locked ${JSON.stringify(entry.thresholds)} at the ` +
    'same version: bump the Decision version and calibrate it again.'
  );
}

/**
 * A cascade whose tiers differ from the locked ones (another connection at a tier, other thresholds, more or fewer
 * tiers), or that the lock holds no tiers of; null when they match or there is no cascade.
 */
function cascadeProblem(
  judgment: string,
  entry: LockedDecision,
  cascade: readonly CascadeTier[] | null,
  decision: Decision,
): string | null {
  if (cascade === null) return null;
  const locked = entry.cascade ?? null;
  if (locked === null) {
    return (
      `the lock records no tiers of the escalation cascade: run \`judgment eval ${judgment} --lock\` to lock each ` +
      "tier's connection and model."
    );
  }
  const declared = decisionThresholds(decision);
  const connections = cascade.map((tier) => tier.connection);
  if (connections.join('\0') !== locked.map((tier) => tier.connection).join('\0')) {
    return (
      `the cascade asks ${connections.join(' → ')}, but the lock calibrated ${locked.map((t) => t.connection).join(' → ')}: ` +
      `run \`judgment eval ${judgment} --lock\` again.`
    );
  }
  for (const [index, tier] of cascade.entries()) {
    const thresholds = declared === null ? null : { ...declared, ...(tier.thresholds as Record<string, number>) };
    if (!sameThresholds(locked[index].thresholds, thresholds)) {
      return (
        `tier ${index + 1} ("${tier.connection}") decides with ${JSON.stringify(thresholds)}, but the lock calibrated ` +
        `${JSON.stringify(locked[index].thresholds)}: run \`judgment eval ${judgment} --lock\` again.`
      );
    }
  }
  return null;
}

/** Why an identity is not one the lock vouches for, or null when it is. */
function driftReason(
  lock: CalibrationLock,
  identity: DecisionIdentity,
  /** The Questions the identity's model answered, when the round had several models. */
  answered: readonly string[] | null,
  /** The cascade tier the decision is made at, or null. */
  step: CascadeStep | null,
): string | null {
  const entry = lock.entry(identity.judgment, identity.decision, identity.decisionVersion);
  if (!entry) {
    const metadata = { name: identity.decision, version: identity.decisionVersion };
    return `${identity.judgment}: ${missingProblem(lock, identity.judgment, metadata)}`;
  }
  const tier = step && entry.cascade ? (entry.cascade[step.tier - 1] ?? null) : null;
  if (step && entry.cascade && (tier === null || tier.connection !== step.connection)) {
    return (
      `tier ${step.tier} of ${identity.judgment} asks "${step.connection}", but the lock calibrated ` +
      `${tier ? `"${tier.connection}"` : 'no such tier'}: run \`judgment eval ${identity.judgment} --lock\` again.`
    );
  }
  if (tier) return tierDriftReason(entry, tier, identity, answered);
  const thresholds = thresholdsProblem(entry, identity.thresholds);
  if (thresholds) return `${lockKey(identity.decision, identity.decisionVersion)}: ${thresholds}`;
  const sameQuestions = entry.identities.filter((locked) => locked.questions === identity.questions);
  if (sameQuestions.length === 0) {
    return (
      `the Questions of ${identity.judgment} (fingerprint ${identity.questions.slice(0, 12)}…) are not the ones ` +
      `calibrated (${entry.identities.map((locked) => `${locked.questions.slice(0, 12)}…`).join(', ')}): bump the ` +
      'Decision version and calibrate again.'
    );
  }
  const sameModel = sameQuestions.filter((locked) => locked.model === identity.model);
  if (sameModel.length === 0) {
    return (
      `the Engine answered ${answered ? `${answered.join(', ')} ` : ''}with the model ${identity.model}, but ` +
      `${identity.judgment} was calibrated with ` +
      `${[...new Set(sameQuestions.map((locked) => locked.model))].join(', ')}: pin the calibrated model or calibrate ` +
      'again with this one.'
    );
  }
  const languages = sameModel.map((locked) => locked.language);
  if (!languages.includes(null) && !languages.includes(identity.language)) {
    return (
      `the language ${JSON.stringify(identity.language)} was not calibrated for ${identity.judgment} (calibrated: ` +
      `${languages.map((language) => JSON.stringify(language)).join(', ')}).`
    );
  }
  return null;
}

/** Why a cascade tier's decision is not one its locked tier vouches for, or null when it is. */
function tierDriftReason(
  entry: LockedDecision,
  tier: LockedTier,
  identity: DecisionIdentity,
  answered: readonly string[] | null,
): string | null {
  const where = `tier ${tier.tier} ("${tier.connection}") of ${identity.judgment}`;
  if (!sameThresholds(tier.thresholds, identity.thresholds)) {
    return (
      `${where} decides with ${JSON.stringify(identity.thresholds)}, but the lock calibrated ` +
      `${JSON.stringify(tier.thresholds)}: run \`judgment eval ${identity.judgment} --lock\` again.`
    );
  }
  const sameQuestions = entry.identities.filter((locked) => locked.questions === identity.questions);
  if (sameQuestions.length === 0) {
    return (
      `the Questions of ${identity.judgment} (fingerprint ${identity.questions.slice(0, 12)}…) are not the ones ` +
      'calibrated: bump the Decision version and calibrate again.'
    );
  }
  if (identity.model !== tier.model) {
    return (
      `${where} answered ${answered ? `${answered.join(', ')} ` : ''}with the model ${identity.model}, but it was ` +
      `calibrated with ${tier.model}: pin the calibrated model or calibrate the cascade again with this one.`
    );
  }
  const languages = sameQuestions.filter((locked) => locked.model === tier.model).map((locked) => locked.language);
  if (languages.length > 0 && !languages.includes(null) && !languages.includes(identity.language)) {
    return (
      `the language ${JSON.stringify(identity.language)} was not calibrated for ${where} (calibrated: ` +
      `${languages.map((language) => JSON.stringify(language)).join(', ')}).`
    );
  }
  return null;
}

function sameThresholds(
  a: Readonly<Record<string, number>> | null,
  b: Readonly<Record<string, number>> | null,
): boolean {
  if (a === null || b === null) return a === b;
  const keys = Object.keys(a).sort();
  return keys.join('\0') === Object.keys(b).sort().join('\0') && keys.every((key) => a[key] === b[key]);
}
