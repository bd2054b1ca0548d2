// Fixtures of the production-calibration suites: a Judgment whose Decision declares thresholds, asked over real HTTP
// of the Jev simulator (its alias moves to another model mid-test), records on PostgreSQL, queues on Redis.
import { Injectable, type INestApplication, type LoggerService } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  type Assessment,
  CalibrationDrifted,
  Decision,
  Evidence,
  Judgment,
  JudgmentModule,
  type JudgmentModuleOptions,
  AgreementDropped,
  AuditRequested,
  Likelihood,
  type ResolutionPolicy,
  ReviewRequested,
  judgmentEntities,
} from 'nestjs-judgment';
import { JudgmentHttpModule, type JudgmentHttpOptions } from 'nestjs-judgment/http';
import { PG, recreateDatabase } from '../support/postgres';
import { REDIS } from '../support/redis';

/** The suite's own database and Redis prefix (the branch name in both: suites run side by side). */
const DATABASE = 'judgment_calib_production';
export const PREFIX = 'calib-production';
export const CALIBRATED_MODEL = 'jev-1.13.0';
export const RELEASED_MODEL = 'jev-1.14.0';

export enum ClaimOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Decision({ name: 'claim-decision', outcomes: ClaimOutcome, review: [ClaimOutcome.Escalate], version: '3' })
export class ClaimDecision implements Decision<ClaimCheck, ClaimOutcome> {
  readonly thresholds = { reject: 0.7, escalate: 0.3 };

  decide(assessment: Assessment<ClaimCheck>): ClaimOutcome {
    const fraud = assessment.likelihood('fraud');
    if (fraud.above(this.thresholds.reject)) return ClaimOutcome.Reject;
    if (fraud.above(this.thresholds.escalate)) return ClaimOutcome.Escalate;
    return ClaimOutcome.Approve;
  }
}

/** A claim, plain data only (queued by value). */
@Judgment({ name: 'claim-check', decision: () => ClaimDecision })
export class ClaimCheck implements Judgment {
  constructor(readonly text: string) {}

  evidence() {
    return { claim: Evidence.untrusted(this.text) };
  }

  questions() {
    return { fraud: Likelihood.that('Is this insurance claim fraudulent?') };
  }
}

/** Every reviewer may resolve and audit (the suite is about audits, not permissions). */
@Injectable()
export class AnyReviewer implements ResolutionPolicy {
  canResolve(): boolean {
    return true;
  }
}

/** What the app's listeners saw. */
@Injectable()
export class DriftLog {
  readonly drifted: CalibrationDrifted[] = [];
  readonly reviews: ReviewRequested[] = [];
  readonly audits: AuditRequested[] = [];
  readonly dropped: AgreementDropped[] = [];

  @OnEvent(AuditRequested.NAME)
  onAudit(event: AuditRequested) {
    this.audits.push(event);
  }

  @OnEvent(AgreementDropped.NAME)
  onDropped(event: AgreementDropped) {
    this.dropped.push(event);
  }

  @OnEvent(CalibrationDrifted.NAME)
  onDrift(event: CalibrationDrifted) {
    this.drifted.push(event);
  }

  @OnEvent(ReviewRequested.NAME)
  onReview(event: ReviewRequested) {
    this.reviews.push(event);
  }
}

/** Collects warnings, to read what startup listed. */
export class WarningLog implements LoggerService {
  readonly warnings: unknown[] = [];
  log(): void {}
  error(): void {}
  warn(message: unknown): void {
    this.warnings.push(message);
  }
}

/** Drops and recreates the suite's database with the package's tables (its migrations, as an app runs them). */
export async function freshDatabase(database = DATABASE): Promise<void> {
  await recreateDatabase(database);
  const { judgmentMigrations } = await import('nestjs-judgment');
  const schema = new DataSource({ ...postgres(database), migrations: judgmentMigrations });
  await schema.initialize();
  await schema.runMigrations();
  await schema.destroy();
}

/** TypeORM settings of the suite's database (or another of the suite's). */
export function postgres(database = DATABASE) {
  return { ...PG, database, entities: judgmentEntities };
}

export interface ProductionAppSettings {
  simulatorUrl: string;
  calibration?: JudgmentModuleOptions['calibration'];
  queue?: boolean;
  logger?: LoggerService;
  /** Another database than the suite's (freshDatabase(name) first). */
  database?: string;
  /** Mounts the HTTP adapter with these options. */
  http?: JudgmentHttpOptions;
}

/** An app asking the simulator through the alias `jev-latest` (so a release moves it), with the queue on or off. */
export async function startApp(settings: ProductionAppSettings): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({ ...postgres(settings.database), retryAttempts: 0 }),
      EventEmitterModule.forRoot(),
      ...(settings.queue ? [BullModule.forRoot({ connection: REDIS, prefix: PREFIX })] : []),
      JudgmentModule.forRoot({
        engine: 'jev',
        engines: {
          jev: { driver: 'jev', key: 'sk-calib', url: settings.simulatorUrl, model: 'jev-latest', allowAliases: true },
        },
        calibration: settings.calibration,
        resolutionPolicy: AnyReviewer,
        ...(settings.queue ? { queue: { enabled: true } } : {}),
      }),
      JudgmentModule.forFeature([ClaimCheck]),
      ...(settings.http ? [JudgmentHttpModule.forRoot(settings.http)] : []),
    ],
    providers: [DriftLog],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: settings.logger ?? false });
  await app.init();
  return app;
}
