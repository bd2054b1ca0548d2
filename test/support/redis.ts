// Redis helpers of the e2e suites: the local Redis every queued suite uses, and removing a test's BullMQ keys.
import IORedis from 'ioredis';
import { servicePort } from './service-port';

/**
 * The Redis every queued suite uses (a unique key prefix per test or suite): port JUDGMENT_TEST_REDIS_PORT (default
 * 6379), so a whole run or a bench can use its own server.
 */
export const REDIS = { host: '127.0.0.1', port: servicePort('JUDGMENT_TEST_REDIS_PORT', 6379) };

/** The URL of the suites' Redis, for REDIS_URL of an app or a child process. */
export const REDIS_URL = `redis://${REDIS.host}:${REDIS.port}`;

/** The environment a child process importing these helpers (a fixture app) needs to reach the same Redis. */
export const REDIS_ENV = { JUDGMENT_TEST_REDIS_PORT: String(REDIS.port) };

/** Deletes every Redis key under a BullMQ prefix (a test's queues). Call it once the apps using them are closed. */
export async function clearPrefix(prefix: string): Promise<void> {
  const redis = new IORedis({ ...REDIS, lazyConnect: true });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}
