import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  JudgmentModule,
  judgmentEntities,
  judgmentOptionsFromEnv,
  judgmentQueueAttemptsFromEnv,
} from 'nestjs-judgment';
import { Refund } from './refund.entity';
import { RefundsModule } from './refunds.module';

/** The app with the BullMQ queue: the HTTP process dispatches (`runWorkers: false`), the worker process runs jobs. */
@Module({})
export class QueuedAppModule {
  static forRoot(role: 'api' | 'worker'): DynamicModule {
    return {
      module: QueuedAppModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: process.env.DATABASE_URL,
          entities: [Refund, ...judgmentEntities],
          synchronize: true, // development only
        }),
        EventEmitterModule.forRoot(),
        BullModule.forRoot({ connection: { url: process.env.REDIS_URL }, prefix: 'refunds' }),
        JudgmentModule.forRoot({
          ...judgmentOptionsFromEnv(process.env),
          queue: { enabled: true, runWorkers: role === 'worker', ...judgmentQueueAttemptsFromEnv(process.env) },
        }),
        RefundsModule,
      ],
    };
  }
}
