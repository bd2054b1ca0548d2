// cost.e2e-spec.ts's app as `judgment --app test/judge/cost-app.module.ts#CostAppModule` runs it: PostgreSQL (the
// database COST_DATABASE on the suites' server, migrated by the suite) and the Jev simulator at COST_SIM_URL.
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JudgmentModule, judgmentEntities } from 'nestjs-judgment';
import { PG } from '../support/postgres';
import { FreeNote, NotePolicy, PricedNote, costOptions } from './cost.fixture';

@Module({
  imports: [
    TypeOrmModule.forRoot({
      ...PG,
      database: process.env.COST_DATABASE,
      entities: judgmentEntities,
      retryAttempts: 0,
    }),
    JudgmentModule.forRoot(costOptions(process.env.COST_SIM_URL ?? 'http://127.0.0.1:9')),
    JudgmentModule.forFeature([PricedNote, FreeNote, NotePolicy]),
  ],
})
export class CostAppModule {}
