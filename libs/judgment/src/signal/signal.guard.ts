import { Inject, Injectable } from '@nestjs/common';
import { resolve } from 'node:path';
import type { Assessment } from '../assessment/assessment';
import type { GuardFinding } from '../decision/decision-plan';
import { SignalCollapsed } from '../events/judgment.events';
import { JudgmentEventsPublisher } from '../events/judgment-events.publisher';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { CalibrationLock } from '../lock/calibration-lock';
import { answerSignals, collapseReason, pooledFigures, type SignalFigures } from '../lock/signal-figures';
import { JudgmentLogger } from '../logging/judgment.logger';
import { judgmentInstruments } from '../telemetry/judgment.metrics';
import { SignalWindow } from './signal-window';

/** A connection and model whose signal has collapsed, and what the guard does about it. */
export interface Collapse {
  readonly connection: string;
  readonly model: string;
  readonly reason: string;
  /** 'review': automatic Outcomes decided on its answers go to Review (`calibration.onDrift`); 'warn': announced. */
  readonly policy: 'review' | 'warn';
}

/** One connection and model as the guard watches it. */
interface Watched {
  readonly calibrated: SignalFigures;
  readonly window: SignalWindow;
  collapse: Collapse | null;
}

/**
 * The signal-collapse guard: per connection and model, the recent answers' near-certain share and mean entropy
 * (SignalWindow) against the calibration run's, which the calibration lock stores (`collapseReason` is the rule). It
 * watches only what the lock has figures for, and nothing with `calibration.onDrift: 'off'` or without a lock.
 * SignalCollapsed, a log line and the metric `judgment.signal.collapses` mark each collapse once, when it begins.
 */
@Injectable()
export class SignalGuard {
  private readonly lock: CalibrationLock | null;
  private readonly policy: 'review' | 'warn' | 'off';
  private readonly watched = new Map<string, Watched | null>();

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    private readonly events: JudgmentEventsPublisher,
    private readonly logger: JudgmentLogger,
  ) {
    const { lock: path, onDrift } = options.calibration;
    this.policy = onDrift;
    this.lock = path === null || onDrift === 'off' ? null : CalibrationLock.readOrEmpty(resolve(path));
  }

  /** Adds a fresh Engine round's answers to its connection and model's window; announces a collapse that began. */
  async observe(assessment: Assessment<any>): Promise<void> {
    const { engine: connection, model } = assessment.provenance;
    const watched = this.watch(connection, model);
    if (watched === null) return;
    watched.window.add(answerSignals(assessment.questions, assessment.encodedAnswers()));
    const live = watched.window.figures() as SignalFigures;
    const reason = collapseReason(watched.calibrated, live);
    if (reason === null) {
      if (watched.collapse !== null) this.logger.info('Signal recovered.', { engine: connection, model });
      watched.collapse = null;
      return;
    }
    if (watched.collapse !== null) return;
    const policy = this.policy === 'review' ? 'review' : 'warn';
    watched.collapse = { connection, model, reason, policy };
    judgmentInstruments().signalCollapses.add(1, { 'judgment.connection': connection, 'gen_ai.response.model': model });
    this.logger.warn('Signal collapsed.', { engine: connection, model, reason, on_drift: policy });
    const lock = (this.lock as CalibrationLock).file;
    await this.events.emit(new SignalCollapsed(connection, model, reason, live, watched.calibrated, policy, lock));
  }

  /** The collapse of the connection and model that answered `assessment`, while it lasts; null otherwise. */
  check(assessment: Assessment<any>): Collapse | null {
    const key = JSON.stringify([assessment.provenance.engine, assessment.provenance.model]);
    return this.watched.get(key)?.collapse ?? null;
  }

  /** A collapse as a finding of the decision plan: cause `collapse`, to Review when the policy is 'review'. */
  finding(collapse: Collapse): GuardFinding {
    return {
      cause: 'collapse',
      text: `Signal collapse (connection "${collapse.connection}", model ${collapse.model}): ${collapse.reason}`,
      sendsToReview: collapse.policy === 'review',
    };
  }

  /** The watch of a connection and model: null when the lock has no signal figures for it. */
  private watch(connection: string, model: string): Watched | null {
    const key = JSON.stringify([connection, model]);
    if (this.watched.has(key)) return this.watched.get(key) as Watched | null;
    const calibrated = this.lock === null ? null : this.calibrated(this.lock, connection, model);
    const watched = calibrated === null ? null : { calibrated, window: new SignalWindow(), collapse: null };
    this.watched.set(key, watched);
    return watched;
  }

  /** The calibration runs' figures for a connection and model, pooled over every lock entry that measured them. */
  private calibrated(lock: CalibrationLock, connection: string, model: string): SignalFigures | null {
    const figures = lock
      .judgmentNames()
      .flatMap((judgment) => lock.entries(judgment))
      .flatMap((entry) => entry.identities)
      .filter((identity) => identity.model === model && (identity.connection ?? connection) === connection)
      .flatMap((identity) => (identity.signal ? [identity.signal] : []));
    return pooledFigures(figures);
  }
}
