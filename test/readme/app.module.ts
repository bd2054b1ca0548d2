import { Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JudgmentModule, judgmentEntities, judgmentOptionsFromEnv } from 'nestjs-judgment';
import { Refund } from './refund.entity';
import { RefundsModule } from './refunds.module';

@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'better-sqlite3',
      database: process.env.SQLITE_PATH ?? 'app.sqlite',
      entities: [Refund, ...judgmentEntities],
      synchronize: true, // development only: production runs migrations (see Persistence)
    }),
    EventEmitterModule.forRoot(),
    JudgmentModule.forRoot(judgmentOptionsFromEnv(process.env)),
    RefundsModule,
  ],
})
export class AppModule {}
