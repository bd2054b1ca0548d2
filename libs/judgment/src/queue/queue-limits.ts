import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import IORedis, { type Cluster } from 'ioredis';
import { EngineManager } from '../engines/engine.manager';
import { queueRateLimit } from '../engines/limits/connection-limits';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { AssessQueues } from './assess-queues';
import { isCluster } from './redis-cluster';

/**
 * The Redis connection the connections' limits are counted on when the queue is enabled and `limiter.redis` is not
 * given: a connection of its own to the assess queue's Redis, closed at shutdown. None when no connection has limits.
 */
export class QueueLimitRedis implements OnApplicationShutdown {
  private constructor(readonly client: IORedis | Cluster) {}

  static for(options: ResolvedJudgmentOptions, assessQueue: Queue): QueueLimitRedis | undefined {
    const limited = Object.values(options.connections).some((config) => config?.limits);
    if (!limited || options.limiter.redis !== undefined) return undefined;
    const connection = assessQueue.opts.connection as unknown;
    if (connection instanceof IORedis) return new QueueLimitRedis(connection.duplicate());
    // An ioredis Cluster (the queue on Redis Cluster): a connection of its own to the same cluster, whose commands
    // fail after one retry too (BullMQ's workers want the queue's to retry for ever).
    if (isCluster(connection)) {
      const redisOptions = { ...connection.options.redisOptions, maxRetriesPerRequest: 1 };
      return new QueueLimitRedis(connection.duplicate(undefined, { redisOptions }));
    }
    // Commands fail after one retry while Redis is down, so the limiter's in-memory stand-in answers instead.
    const { url, ...redisOptions } = { ...(connection as { url?: string }), maxRetriesPerRequest: 1 };
    return new QueueLimitRedis(url ? new IORedis(url, redisOptions) : new IORedis(redisOptions));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/**
 * Applies each connection's request limit to that connection's assess queue as BullMQ's global rate limit (kept in
 * Redis, so every worker on the queue obeys it together; paced to the account's bucket when `limits.burst` is
 * declared, see queueRateLimit), or removes a global rate limit left from an earlier
 * configuration.
 */
@Injectable()
export class AssessQueueLimit implements OnApplicationBootstrap {
  constructor(
    private readonly queues: AssessQueues,
    private readonly engines: EngineManager,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const { connection, queue } of this.queues.all()) {
      let limits;
      try {
        limits = this.engines.limiter(connection)?.limits;
      } catch {
        continue; // A misconfigured connection is the startup check's to report.
      }
      const rate = limits ? queueRateLimit(limits) : null;
      if (rate) {
        await queue.setGlobalRateLimit(rate.max, rate.durationMs);
      } else {
        await queue.removeGlobalRateLimit();
      }
    }
  }
}
