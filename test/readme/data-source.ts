import { judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { DataSource } from 'typeorm';
import { Refund } from './refund.entity';

/** For the TypeORM CLI (`typeorm migration:run -d dist/data-source.js`) and `migrationsRun` in the app. */
export default new DataSource({
  type: 'postgres',
  url: process.env.DATABASE_URL,
  entities: [Refund, ...judgmentEntities],
  migrations: [...judgmentMigrations, 'dist/migrations/*.js'],
});
