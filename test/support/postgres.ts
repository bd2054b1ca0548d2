// The PostgreSQL server every e2e suite uses: 127.0.0.1, user `postgres` (trust), port JUDGMENT_TEST_PG_PORT
// (default 5432), so a whole run can use a private server. Suites keep their own database names.
import { DataSource } from 'typeorm';
import { servicePort } from './service-port';

/** TypeORM connection settings of the suites' server (add `database`, `entities`...). */
export const PG = {
  type: 'postgres' as const,
  host: '127.0.0.1',
  port: servicePort('JUDGMENT_TEST_PG_PORT', 5432),
  username: 'postgres',
};

/** The URL of `database` on the suites' server, for DATABASE_URL of an app or a child process. */
export function databaseUrl(database: string): string {
  return `postgres://${PG.username}@${PG.host}:${PG.port}/${database}`;
}

/** Drops (closing its connections) and creates `database`, empty; `port` names another server (a fault test's). */
export async function recreateDatabase(database: string, port = PG.port): Promise<void> {
  const admin = new DataSource({ ...PG, port, database: 'postgres' });
  await admin.initialize();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.destroy();
  }
}
