import { InvalidCalibrationLock } from '../errors';
import {
  type CalibrationLock,
  type LockedDecision,
  type LockedIdentity,
  type LockedTier,
} from '../lock/calibration-lock';
import type { CalibrationReport, CalibrationResult, CascadeTierContext } from './calibration.report';

/**
 * The lock with a calibration run's figures: per Decision × version, the entry is replaced by the identities this run
 * measured (Questions × model × language, with n, accuracy and review rate with intervals, Brier/ECE, thresholds,
 * dataset fingerprint and date). Other Judgments' and Decisions' entries stay as they are.
 */
export function lockCalibration(lock: CalibrationLock, report: CalibrationReport): CalibrationLock {
  const context = report.context;
  if (!context) {
    throw new InvalidCalibrationLock(
      lock.file,
      null,
      'cannot be updated from a report built by hand: run a calibration.',
    );
  }
  const byDecision = new Map<string, CalibrationResult[]>();
  for (const result of report.results) {
    const key = JSON.stringify([result.identity.decision, result.identity.decisionVersion]);
    byDecision.set(key, [...(byDecision.get(key) ?? []), result]);
  }
  let updated = lock;
  for (const results of byDecision.values()) {
    const { decision, decisionVersion } = results[0].identity;
    const cascade = lockedCascade(lock, context.cascade ?? null, decision);
    const entry: LockedDecision = {
      decision,
      version: decisionVersion,
      ...(cascade === null ? {} : { cascade }),
      thresholds: context.thresholds[decision] ?? null,
      identities: results.map((result): LockedIdentity => {
        const source = context.connections[result.identity.model] ?? null;
        return {
          questions: result.identity.questions,
          model: result.identity.model,
          connection: source?.connection ?? null,
          driver: source?.driver ?? null,
          language: result.identity.language,
          cases: result.cases,
          accuracy: result.accuracy,
          accuracyInterval: result.accuracyInterval,
          reviewRate: result.reviewRate,
          reviewRateInterval: result.reviewRateInterval,
          brier: Object.fromEntries(result.scores.map((score) => [score.question, score.brier])),
          expectedCalibrationError: Object.fromEntries(
            result.scores.map((score) => [score.question, score.expectedCalibrationError]),
          ),
          dataset: context.dataset,
          calibratedAt: context.calibratedAt,
          signal: result.signal && {
            answers: result.signal.answers,
            certainShare: round(result.signal.certainShare),
            meanEntropy: round(result.signal.meanEntropy),
          },
        };
      }),
    };
    updated = updated.with(context.judgment, entry);
  }
  return updated;
}

/**
 * The cascade's tiers as the lock records them, for the cascade's Decision (null for another Decision, or without a
 * cascade). A tier that answered no case has no model to vouch for: the lock is not written.
 */
function lockedCascade(
  lock: CalibrationLock,
  cascade: readonly CascadeTierContext[] | null,
  decision: string,
): LockedTier[] | null {
  if (cascade === null || cascade.length === 0 || cascade[0].decision !== decision) return null;
  return cascade.map((tier, index) => {
    if (tier.model === null) {
      throw new InvalidCalibrationLock(
        lock.file,
        null,
        `cannot record tier ${index + 1} ("${tier.connection}") of the cascade: it answered no case, so there is no ` +
          'model to vouch for. Check the connection (`judgment probe`) and run the calibration again.',
      );
    }
    return {
      tier: index + 1,
      connection: tier.connection,
      driver: tier.driver,
      model: tier.model,
      thresholds: tier.thresholds,
    };
  });
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
