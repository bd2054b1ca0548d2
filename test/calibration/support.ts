// Fixtures of the calibration suites: a real TypeORM Subject on PostgreSQL, Judgments and Decisions, and a real
// in-process Engine driver (`stub`) whose answers are steered by markers in the Evidence text.
import { Injectable, type INestApplication, type LoggerService } from '@nestjs/common';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import {
  type Assessment,
  Decision,
  EngineRateLimited,
  Evidence,
  Judgment,
  JudgmentModule,
  type JudgmentModuleOptions,
  Likelihood,
  Rating,
  UntrustedText,
  judgmentEntities,
} from 'nestjs-judgment';
import {
  type Engine,
  type EngineConnectionOptions,
  type EngineFactory,
  type EngineRequest,
  type EngineResponse,
  Provenance,
} from 'nestjs-judgment/drivers';
import { PG } from '../support/postgres';

@Entity({ name: 'calibration_refunds' })
export class Refund {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar' })
  item!: string;

  @Column({ type: 'float' })
  amount!: number;

  @Column({ type: 'text' })
  explanation!: string;

  @Column({ type: 'varchar', nullable: true })
  locale!: string | null;
}

export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Judgment({ name: 'refund-abuse', decision: () => RefundDecision, cacheFor: 3600 })
export class RefundAbuse implements Judgment {
  constructor(readonly refund: Refund) {}

  evidence() {
    return {
      order: { item: this.refund.item, amount_eur: this.refund.amount },
      request: { explanation: Evidence.untrusted(this.refund.explanation) },
    };
  }

  questions() {
    return {
      abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?'),
      flags: Likelihood.each({ spam: 'Is the request spam?', threat: 'Does the request threaten anyone?' }),
      credibility: Rating.of('How credible is the explanation of the refund request?', [
        'Not credible',
        'Plausible',
        'Fully credible',
      ]),
    };
  }

  language() {
    return this.refund.locale;
  }
}

@Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate], version: '2' })
export class RefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(0.65)) return RefundOutcome.Reject;
    if (abusive.above(0.3)) return RefundOutcome.Escalate;
    return RefundOutcome.Approve;
  }
}

/** A second Decision over the same Judgment, registered under its own name and without Review. */
@Decision({ outcomes: RefundOutcome, name: 'strict-refund' })
export class StrictRefundDecision implements Decision<RefundAbuse, RefundOutcome> {
  decide(assessment: Assessment<RefundAbuse>): RefundOutcome {
    return assessment.likelihood('abusive').above(0.2) ? RefundOutcome.Reject : RefundOutcome.Approve;
  }
}

/** A Judgment whose Subject is typed with an interface: no entity class in its constructor's parameter types. */
export interface RefundLike {
  item: string;
  amount: number;
  explanation: string;
  locale: string | null;
}

@Judgment({ name: 'loose-refund-abuse', decision: () => RefundDecision })
export class LooseRefundAbuse implements Judgment {
  constructor(readonly refund: RefundLike) {}

  evidence() {
    return { request: { explanation: Evidence.untrusted(this.refund.explanation) } };
  }

  questions() {
    return { abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?') };
  }
}

/** What the stub Engines saw and did (shared across instances; reset per test). */
export const stubLog = {
  requests: [] as Array<{ connection: string; evidence: EngineRequest['evidence'] }>,
  inFlight: 0,
  maxInFlight: 0,
  reset(): void {
    this.requests = [];
    this.inFlight = 0;
    this.maxInFlight = 0;
  },
};

/**
 * The `stub` driver: answers `abusive` from an `abusive=0.42` marker in the request text (0.05 without one), every
 * other Likelihood 0.05 and every Rating [0.1, 0.2, 0.7]. A connection's `failOn` option fails the rounds whose text
 * holds it with a 429 (EngineRateLimited); `garbage` makes it break its contract (answers: null); `reports` is the model it reports (default: the
 * configured one); `ticks=N` yields N times before answering.
 */
export class StubEngine implements Engine {
  constructor(
    private readonly connection: string,
    private readonly config: EngineConnectionOptions,
  ) {}

  model(): string {
    return String(this.config.model);
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    const text = JSON.stringify(request.evidence);
    stubLog.requests.push({ connection: this.connection, evidence: request.evidence });
    stubLog.inFlight += 1;
    stubLog.maxInFlight = Math.max(stubLog.maxInFlight, stubLog.inFlight);
    try {
      const ticks = Number(/ticks=(\d+)/.exec(text)?.[1] ?? 1);
      for (let tick = 0; tick < ticks; tick++) await new Promise((resolve) => setImmediate(resolve));
      const failOn = this.config.failOn;
      if (typeof failOn === 'string' && text.includes(failOn)) {
        throw new EngineRateLimited(`The stub Engine "${this.connection}" was told to fail.`);
      }
      if (text.includes('garbage')) return { answers: null, provenance: new Provenance(this.connection, 'x') } as never;
      const abusive = Number(/abusive=([\d.]+)/.exec(text)?.[1] ?? 0.05);
      const answers: Record<string, EngineResponse['answers'][string]> = {};
      for (const [key, question] of request.questions) {
        answers[key] = key === 'abusive' ? abusive : question.kind === 'rating' ? [0.1, 0.2, 0.7] : 0.05;
      }
      const reported = typeof this.config.reports === 'string' ? this.config.reports : this.model();
      return { answers, provenance: new Provenance(this.connection, reported, null, {}) };
    } finally {
      stubLog.inFlight -= 1;
    }
  }
}

/** The stub driver, given to the module as `drivers: { stub }`. */
const stub: EngineFactory = (config, { name }) => new StubEngine(name, config);

/** Whether the Evidence the Engine saw held UntrustedText at `request.explanation`. */
export function sawUntrustedExplanation(evidence: EngineRequest['evidence']): boolean {
  return (evidence.request as Record<string, unknown>)?.explanation instanceof UntrustedText;
}

/** Everything the package announced (any event) while the app ran. */
@Injectable()
export class AnyEvent {
  readonly names: string[] = [];

  @OnEvent('**')
  on(event: object): void {
    this.names.push(event.constructor.name);
  }
}

/** A logger keeping every line. */
export class CapturingLogger implements LoggerService {
  readonly lines: unknown[] = [];
  log(message: unknown): void {
    this.lines.push(message);
  }
  error(message: unknown): void {
    this.lines.push(message);
  }
  warn(message: unknown): void {
    this.lines.push(message);
  }
}

/**
 * An app on the database with the stub connections `stub` (default, model stub-1.0.0) and `stub-next` (configured
 * stub-2.0.0, reports stub-2.0.1, fails on `next-fails`).
 */
export async function calibrationApp(
  database: string,
  options: JudgmentModuleOptions = {},
): Promise<{ app: INestApplication; logger: CapturingLogger }> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        ...PG,
        database,
        entities: [Refund, ...judgmentEntities],
        synchronize: true,
        retryAttempts: 0,
      }),
      EventEmitterModule.forRoot({ wildcard: true }),
      JudgmentModule.forRoot({
        engine: 'stub',
        drivers: { stub },
        engines: {
          stub: { driver: 'stub', model: 'stub-1.0.0' },
          'stub-next': { driver: 'stub', model: 'stub-2.0.0', reports: 'stub-2.0.1', failOn: 'next-fails' },
        },
        ...options,
      }),
      JudgmentModule.forFeature([RefundAbuse, StrictRefundDecision, LooseRefundAbuse]),
    ],
    providers: [AnyEvent],
  }).compile();
  const logger = new CapturingLogger();
  const app = moduleRef.createNestApplication({ logger });
  await app.init();
  return { app, logger };
}
