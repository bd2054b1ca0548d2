import { InvalidConfiguration } from '../errors';
import { hashTagOf, requireHashTaggedPrefix } from './redis-cluster';

describe('the queue prefix on Redis Cluster', () => {
  it('reads the hash tag as Redis Cluster does: between the first { and the next }, when not empty', () => {
    expect(hashTagOf('{judgment}')).toBe('judgment');
    expect(hashTagOf('app:{judgment}:queues')).toBe('judgment');
    expect(hashTagOf('{a}{b}')).toBe('a');
    expect(hashTagOf('judgment')).toBeNull();
    expect(hashTagOf('{}judgment')).toBeNull();
    expect(hashTagOf('{judgment')).toBeNull();
    expect(hashTagOf('}{')).toBeNull();
  });

  it('refuses a prefix without one only on a Cluster connection, naming the option and the fix', () => {
    const cluster = { isCluster: true };
    expect(() => requireHashTaggedPrefix(cluster, '{judgment}')).not.toThrow();
    expect(() => requireHashTaggedPrefix({ isCluster: false }, 'bull')).not.toThrow();
    expect(() => requireHashTaggedPrefix({ host: '127.0.0.1', port: 6379 }, undefined)).not.toThrow();
    expect(() => requireHashTaggedPrefix(cluster, 'judgment')).toThrow(InvalidConfiguration);
    expect(() => requireHashTaggedPrefix(cluster, undefined)).toThrow(
      /queue prefix \(BullModule\.forRoot's `prefix`, unset, so BullMQ's default 'bull'\) has no hash tag.*prefix: '\{judgment\}'/,
    );
  });
});
