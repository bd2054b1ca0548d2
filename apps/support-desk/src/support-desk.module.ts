import { resolve } from 'node:path';
import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JudgmentModule, judgmentQueueAttemptsFromEnv } from 'nestjs-judgment';
import { JudgmentHttpModule } from 'nestjs-judgment/http';
import { EngineSetup, EngineSetupModule } from './config/engine-setup';
import { HealthController } from './health.controller';
import { SUPPORT_DESK_CONFIG, type SupportDeskConfig } from './config/support-desk.config';
import { ModerationModule } from './moderation/moderation.module';
import { RefundsModule } from './refunds/refunds.module';
import { AgentResolutionPolicy } from './review/agent-resolution.policy';
import { Agents } from './review/agents';
import { ReviewModule } from './review/review.module';
import { TicketsModule } from './tickets/tickets.module';

/** The demo's calibration lock (`npm run judgment -- eval <judgment> --dataset=… --lock apps/support-desk/judgment.lock.json`). */
export const SUPPORT_DESK_LOCK = resolve(__dirname, '..', 'judgment.lock.json');

/** Which process the module runs in: the HTTP API (only dispatches jobs), the worker (runs them), or both. */
export type SupportDeskRole = 'api' | 'worker' | 'all';

/** Makes the settings injectable everywhere. */
@Module({})
class SupportDeskConfigModule {
  static forRoot(config: SupportDeskConfig): DynamicModule {
    return {
      module: SupportDeskConfigModule,
      global: true,
      providers: [{ provide: SUPPORT_DESK_CONFIG, useValue: config }],
      exports: [SUPPORT_DESK_CONFIG],
    };
  }
}

/**
 * The support desk: refunds (RefundAbuse), tickets (TicketRouting) and posts (PostModeration), the Review API and
 * the Actions. The app owns TypeORM, EventEmitter and BullMQ (their forRoot is here); nestjs-judgment registers
 * its features with them. With a queue, the API only dispatches and the worker (role `worker`) runs the jobs.
 */
@Module({})
export class SupportDeskModule {
  static forRoot(config: SupportDeskConfig, role: SupportDeskRole = 'api'): DynamicModule {
    const queue = config.queue
      ? { enabled: true, runWorkers: role !== 'api', ...judgmentQueueAttemptsFromEnv(config.env) }
      : undefined;
    return {
      module: SupportDeskModule,
      controllers: [HealthController],
      imports: [
        SupportDeskConfigModule.forRoot(config),
        TypeOrmModule.forRoot(config.database),
        EventEmitterModule.forRoot(),
        ...(config.queue
          ? [BullModule.forRoot({ connection: config.queue.connection, prefix: config.queue.prefix })]
          : []),
        ReviewModule,
        JudgmentModule.forRootAsync({
          queue,
          // Static, like queue: JudgmentModule builds the policy through DI, with Agents from ReviewModule's exports.
          resolutionPolicy: AgentResolutionPolicy,
          imports: [EngineSetupModule.forRoot(config.env), ReviewModule],
          inject: [EngineSetup],
          useFactory: (engine: EngineSetup) => ({
            ...engine.options,
            // The committed calibration lock covers every Decision under both demo Engines (the Jev simulator and the
            // simulator's OpenAI mode); on any other model or Questions a decision goes to Review, saying why.
            calibration: { ...engine.options.calibration, lock: SUPPORT_DESK_LOCK, onDrift: 'review' },
          }),
        }),
        JudgmentHttpModule.forRootAsync({
          ui: true,
          imports: [ReviewModule],
          inject: [Agents],
          useFactory: (agents: Agents) => ({
            canView: (request) => agents.isAgent(agents.fromRequest(request)),
            reviewerFrom: (request) => agents.fromRequest(request),
          }),
        }),
        RefundsModule,
        TicketsModule,
        ModerationModule,
      ],
    };
  }
}
