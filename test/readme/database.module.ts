import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { Refund } from './refund.entity';

/** PostgreSQL, its schema from the package's migrations and the app's own, run when the app starts. */
@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url: process.env.DATABASE_URL,
      entities: [Refund, ...judgmentEntities],
      migrations: [...judgmentMigrations, 'dist/migrations/*.js'],
      migrationsRun: true,
    }),
  ],
})
export class DatabaseModule {}
