import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import { type Judgment, judgmentMetadata } from '../definition/judgment.decorator';
import { RESOLVED_JUDGMENT_OPTIONS } from '../judgment.constants';
import type { ResolvedJudgmentOptions } from '../judgment.options';
import { ASSESS_QUEUE } from './queue.constants';
import { requireHashTaggedPrefix } from './redis-cluster';

/** One Engine connection's assess queue. */
export interface ConnectionQueue {
  readonly connection: string;
  readonly queue: Queue;
}

/**
 * The assess queue of a connection: the default connection's is `queue.assessQueue` itself (`judgment-assess`, the
 * name every job had before there was a queue per connection), any other connection's is `<assessQueue>-<connection>`
 * (`judgment-assess-openai`). A `:` in a connection's name, which BullMQ refuses in a queue name, becomes `%3A`.
 */
export function assessQueueName(assessQueue: string, connection: string, defaultConnection: string): string {
  if (connection === defaultConnection) return assessQueue;
  return `${assessQueue}-${connection.replace(/:/g, '%3A')}`;
}

/** The connection a Judgment asks: its own `engine()`, else `@Judgment({ engine })`, else the default connection. */
export function connectionOf(judgment: Judgment, defaultConnection: string): string {
  return judgment.engine?.() ?? judgmentMetadata(judgment.constructor).engine ?? defaultConnection;
}

/**
 * Every Engine connection's assess queue, so one account's rate limit (and its 429s) pauses only its own queue. The
 * default connection's is the queue BullModule registered (ASSESS_QUEUE); the others are opened here, at runtime
 * (the connections may come from `forRootAsync`), on the same Redis connection and prefix, and closed at shutdown.
 * A queue named in `dispatch(j, { queue })` that is none of these is opened on first use, the same way. On Redis
 * Cluster it refuses a prefix without a hash tag (every queue must share one slot).
 */
@Injectable()
export class AssessQueues implements OnApplicationShutdown {
  private readonly byConnection = new Map<string, Queue>();
  private readonly byName = new Map<string, Queue>();
  private readonly opened: Queue[] = [];
  private readonly defaultConnection: string;

  constructor(
    @Inject(RESOLVED_JUDGMENT_OPTIONS) options: ResolvedJudgmentOptions,
    @Inject(ASSESS_QUEUE) private readonly defaultQueue: Queue,
  ) {
    // Every Judgment queue is registered on the same BullModule connection and prefix as this one.
    requireHashTaggedPrefix(defaultQueue.opts.connection, defaultQueue.opts.prefix);
    this.defaultConnection = options.defaultConnection;
    this.byName.set(defaultQueue.name, defaultQueue);
    this.byConnection.set(this.defaultConnection, defaultQueue);
    for (const connection of Object.keys(options.connections)) {
      const queue = this.named(assessQueueName(defaultQueue.name, connection, this.defaultConnection));
      this.byConnection.set(connection, queue);
    }
  }

  /** Each connection's queue, the default connection's first. */
  all(): ConnectionQueue[] {
    return [...this.byConnection].map(([connection, queue]) => ({ connection, queue }));
  }

  /** The queue of the connection `judgment` asks; the default connection's for a connection not configured. */
  forJudgment(judgment: Judgment): Queue {
    return this.byConnection.get(connectionOf(judgment, this.defaultConnection)) ?? this.defaultQueue;
  }

  /** The queue of `connection`; the default connection's for a connection not configured. */
  forConnection(connection: string): Queue {
    return this.byConnection.get(connection) ?? this.defaultQueue;
  }

  /** The queue named `name` (on the assess queue's Redis connection and prefix), opened on first use. */
  named(name: string): Queue {
    let queue = this.byName.get(name);
    if (!queue) {
      const { connection, prefix } = this.defaultQueue.opts;
      queue = new Queue(name, { connection, prefix });
      this.byName.set(name, queue);
      this.opened.push(queue);
    }
    return queue;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.opened.splice(0).map((queue) => queue.close()));
  }
}
