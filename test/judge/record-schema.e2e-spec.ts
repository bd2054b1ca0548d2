// With persistence on, startup verifies the package's tables and columns exist (issue 27, point 7): a database the
// migrations have not been run on refuses the start, naming judgmentMigrations and what is missing, instead of
// paying for the first round and failing to record it. One catalog query. PostgreSQL and SQLite.
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { type Logger as TypeOrmLogger } from 'typeorm';
import { DataSource } from 'typeorm';
import { Judge, JudgmentModule, judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import type { JevSimulator } from 'nestjs-judgment/simulator';
import { JudgmentCheckFailed } from 'nestjs-judgment/testing';
import { PG, recreateDatabase } from '../support/postgres';
import { NoteCheck, decisionRequests, jevOptions, rejectionOf, startSimulator } from './support';

const DATABASE = 'judgment_judge_record_schema';

let sim: JevSimulator;
let url: string;

beforeAll(async () => {
  ({ sim, url } = await startSimulator());
});

afterAll(async () => {
  await sim?.stop();
});

/** Every statement TypeORM sends, kept to count them. */
class StatementLog implements TypeOrmLogger {
  readonly statements: string[] = [];
  logQuery(query: string) {
    this.statements.push(query);
  }
  logQueryError() {}
  logQuerySlow() {}
  logSchemaBuild() {}
  logMigration() {}
  log() {}
}

/** Runs the package's migrations on `database`, then `sql` (to take something away again). */
async function migrate(database: string, ...sql: string[]): Promise<void> {
  const dataSource = await new DataSource({ ...PG, database, migrations: judgmentMigrations }).initialize();
  await dataSource.runMigrations();
  for (const statement of sql) await dataSource.query(statement);
  await dataSource.destroy();
}

/** An app on `database` (PostgreSQL) or on an in-memory SQLite database prepared by `sqlite`. */
async function startOn(
  target: { database: string } | { sqlite: { migrate?: boolean; sql?: string } },
  persistence = true,
  log = new StatementLog(),
) {
  const typeOrm =
    'database' in target
      ? TypeOrmModule.forRoot({
          ...PG,
          database: target.database,
          entities: judgmentEntities,
          retryAttempts: 0,
          logging: ['query'],
          logger: log,
        })
      : TypeOrmModule.forRootAsync({
          useFactory: () => ({
            type: 'better-sqlite3',
            database: ':memory:',
            entities: judgmentEntities,
            migrations: target.sqlite.migrate ? judgmentMigrations : [],
            migrationsRun: true,
          }),
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            if (target.sqlite.sql) await dataSource.query(target.sqlite.sql);
            return dataSource;
          },
        });
  const moduleRef = await Test.createTestingModule({
    imports: [
      typeOrm,
      JudgmentModule.forRoot({ ...jevOptions(url), persistence: { enabled: persistence }, log: false }),
      JudgmentModule.forFeature([NoteCheck]),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

describe('startup verifies the tables and columns of the records', () => {
  beforeEach(async () => {
    await recreateDatabase(DATABASE);
    sim.clearLog();
  });

  it('refuses to start on a database without the package tables, naming judgmentMigrations and the table', async () => {
    const error = await rejectionOf(startOn({ database: DATABASE }));
    expect(error).toBeInstanceOf(JudgmentCheckFailed);
    expect(error.message).toMatch(/no table judgment_assessments/);
    expect(error.message).toMatch(/judgmentMigrations/);
    expect(decisionRequests(sim)).toHaveLength(0);
  });

  it('refuses to start when a column is missing (a migration not run), naming the column', async () => {
    await migrate(DATABASE, 'ALTER TABLE judgment_assessments DROP COLUMN review_reason');
    const error = await rejectionOf(startOn({ database: DATABASE }));
    expect(error).toBeInstanceOf(JudgmentCheckFailed);
    expect(error.message).toMatch(/judgment_assessments has no column review_reason/);
    expect(error.message).toMatch(/judgmentMigrations/);
  });

  it('starts on a migrated database, asking the catalog once', async () => {
    await migrate(DATABASE);
    const log = new StatementLog();
    const app = await startOn({ database: DATABASE }, true, log);
    try {
      expect(log.statements.filter((sql) => /pg_attribute|information_schema|pg_catalog/i.test(sql))).toHaveLength(1);
      await app.get(Judge).assess(new NoteCheck('Hello [[flagged=0.1]]'));
      expect(decisionRequests(sim)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('starts without the tables when persistence is off', async () => {
    const app = await startOn({ database: DATABASE }, false);
    await app.close();
  });

  it('SQLite: refuses to start without the table, and with a column missing', async () => {
    const none = await rejectionOf(startOn({ sqlite: {} }));
    expect(none.message).toMatch(/no table judgment_assessments.*judgmentMigrations/s);
    const sql = 'CREATE TABLE judgment_assessments (id integer PRIMARY KEY, judgment varchar)';
    const partial = await rejectionOf(startOn({ sqlite: { sql } }));
    expect(partial.message).toMatch(/judgment_assessments has no column subject_type, subject_id, evidence/);
    const migrated = await startOn({ sqlite: { migrate: true } });
    await migrated.close();
  });
});
