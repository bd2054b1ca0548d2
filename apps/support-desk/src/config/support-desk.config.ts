import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { TypeOrmModuleOptions } from '@nestjs/typeorm';
import type { ConnectionOptions } from 'bullmq';
import { judgmentEntities, judgmentMigrations } from 'nestjs-judgment';
import { CreateSupportDeskTables1764500000000 } from '../database/migrations/1764500000000-create-support-desk-tables';
import { Post } from '../moderation/post.entity';
import { Refund } from '../refunds/refund.entity';
import { ReviewNotification } from '../review/review-notification.entity';
import { Ticket } from '../tickets/ticket.entity';

/** The environment the demo reads (process.env by default). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Where the demo keeps its data when no database is configured. */
export const DEFAULT_SQLITE_PATH = '.tmp/support-desk.sqlite';

/** The support desk's settings, read once from the environment. */
export interface SupportDeskConfig {
  /** The environment the Judgment module options are read from (`judgmentOptionsFromEnv`). */
  readonly env: Env;
  /** TypeORM: PostgreSQL when DATABASE_URL or POSTGRES_HOST is set, else SQLite. Migrations run at startup. */
  readonly database: TypeOrmModuleOptions;
  /** BullMQ on Redis when REDIS_URL or REDIS_HOST is set; null runs dispatched Judgments inline. */
  readonly queue: { readonly connection: ConnectionOptions; readonly prefix: string } | null;
  /** HTTP port of main.ts and `demo --serve`. */
  readonly port: number;
  /** Agents (x-agent header) who may read and resolve Reviews. */
  readonly agents: readonly string[];
  /** Agents who may also adjudicate an N-of-M Review whose votes disagree (SUPPORT_DESK_LEADS; default none). */
  readonly leads: readonly string[];
}

/** The entities of the demo's DataSource: the package's and its own. */
export const supportDeskEntities = [...judgmentEntities, Refund, Ticket, Post, ReviewNotification];
/** The migrations of the demo's DataSource: the package's and its own. */
export const supportDeskMigrations = [...judgmentMigrations, CreateSupportDeskTables1764500000000];

/** Reads the settings; `sqlitePath` is the SQLite file used when no database is configured (`:memory:` allowed). */
export function supportDeskConfig(env: Env = process.env, defaults: { sqlitePath?: string } = {}): SupportDeskConfig {
  return {
    env,
    database: databaseOptions(env, defaults.sqlitePath ?? DEFAULT_SQLITE_PATH),
    queue: queueOptions(env),
    port: integer(env, 'PORT', 3000),
    agents: (value(env, 'SUPPORT_DESK_AGENTS') ?? 'alice,bob')
      .split(',')
      .map((agent) => agent.trim())
      .filter((agent) => agent !== ''),
    leads: (value(env, 'SUPPORT_DESK_LEADS') ?? '')
      .split(',')
      .map((agent) => agent.trim())
      .filter((agent) => agent !== ''),
  };
}

function databaseOptions(env: Env, sqlitePath: string): TypeOrmModuleOptions {
  const shared = {
    entities: supportDeskEntities,
    migrations: supportDeskMigrations,
    migrationsRun: true,
    retryAttempts: 0,
  };
  const url = value(env, 'DATABASE_URL');
  if (url) return { type: 'postgres', url, ...shared };
  const host = value(env, 'POSTGRES_HOST');
  if (host) {
    return {
      type: 'postgres',
      host,
      port: integer(env, 'POSTGRES_PORT', 5432),
      username: value(env, 'POSTGRES_USER') ?? 'postgres',
      password: value(env, 'POSTGRES_PASSWORD'),
      database: value(env, 'POSTGRES_DB') ?? 'support_desk',
      ...shared,
    };
  }
  const database = value(env, 'SQLITE_PATH') ?? sqlitePath;
  if (database !== ':memory:') mkdirSync(dirname(resolve(database)), { recursive: true });
  return { type: 'better-sqlite3', database, ...shared };
}

function queueOptions(env: Env): SupportDeskConfig['queue'] {
  const prefix = value(env, 'QUEUE_PREFIX') ?? 'support-desk';
  const url = value(env, 'REDIS_URL');
  if (url) return { prefix, connection: { url, maxRetriesPerRequest: null } };
  const host = value(env, 'REDIS_HOST');
  if (!host) return null;
  return {
    prefix,
    connection: {
      host,
      port: integer(env, 'REDIS_PORT', 6379),
      password: value(env, 'REDIS_PASSWORD'),
      maxRetriesPerRequest: null,
    },
  };
}

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

function integer(env: Env, name: string, fallback: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number; got "${raw}".`);
  return Number(raw);
}

/** Injection token of the SupportDeskConfig. */
export const SUPPORT_DESK_CONFIG = Symbol('SUPPORT_DESK_CONFIG');
