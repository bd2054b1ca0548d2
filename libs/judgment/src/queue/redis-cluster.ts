import type { Cluster } from 'ioredis';
import { InvalidConfiguration } from '../errors';

/** Whether a BullMQ connection is an ioredis Cluster (ioredis marks its clients with `isCluster`). */
export function isCluster(connection: unknown): connection is Cluster {
  return typeof connection === 'object' && connection !== null && (connection as Cluster).isCluster === true;
}

/**
 * The hash tag of a key prefix as Redis Cluster reads it: what lies between the first `{` and the next `}`, when
 * not empty; null when there is none (each key then hashes whole, to a slot of its own).
 */
export function hashTagOf(prefix: string): string | null {
  const open = prefix.indexOf('{');
  if (open < 0) return null;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix.slice(open + 1, close) : null;
}

/**
 * Refuses a queue on Redis Cluster whose prefix has no hash tag: BullMQ's scripts touch several keys of a queue at
 * once, which Redis Cluster allows only within one slot (CROSSSLOT otherwise), and the assess job chains its decide
 * job on another queue, so every queue needs the same tag.
 */
export function requireHashTaggedPrefix(connection: unknown, prefix: string | undefined): void {
  if (!isCluster(connection)) return;
  const given = prefix ?? 'bull';
  if (hashTagOf(given) !== null) return;
  throw new InvalidConfiguration(
    `The queue's Redis connection is a Redis Cluster, but the queue prefix (BullModule.forRoot's \`prefix\`, ` +
      `${prefix === undefined ? "unset, so BullMQ's default 'bull'" : JSON.stringify(prefix)}) has no hash tag: ` +
      `BullMQ needs each queue's keys in one slot, and the decide job shares the assess job's. Give it one, as in ` +
      `BullModule.forRoot({ connection: cluster, prefix: '{judgment}' }).`,
  );
}
