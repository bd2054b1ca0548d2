// Redis helpers of the e2e suites: the local Redis every queued suite uses, and removing a test's BullMQ keys.
import IORedis from 'ioredis';

/** The Redis every queued suite uses (a unique key prefix per test or suite); a bench may point it at its own. */
export const REDIS = { host: '127.0.0.1', port: Number(process.env.JUDGMENT_TEST_REDIS_PORT ?? 6379) };

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
