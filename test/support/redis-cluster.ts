// A Redis Cluster of our own for the cluster suites: three masters and three replicas on free loopback ports, started
// by the suite (redis-server --cluster-enabled, then redis-cli --cluster create) and stopped by it, so `npm test`
// runs them anywhere redis-server 7 is installed (CI and a dev machine alike) and no run meets another's cluster.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, type ClusterOptions } from 'ioredis';
import { freePort } from './service-port';

const run = promisify(execFile);

/** Milliseconds a node may be unreachable before the cluster counts it as failed (a replica then takes over). */
export const CLUSTER_NODE_TIMEOUT_MS = 2000;

/**
 * The ioredis Cluster options of the suites' queue connections: BullMQ's workers block on Redis, so every command is
 * retried (maxRetriesPerRequest null); and a command meeting a failed master is tried again every 1000 ms, up to
 * ioredis's 16 redirections (16 s), which outlasts a failover (the node timeout, then the replica's election: 3.8–5.1
 * s seen here). With ioredis's 100 ms (1.6 s in all), a job's command fails during a failover ("Too many Cluster
 * redirections") and the job fails with it; with 500 ms (8 s) a slow failover still left 2–3 of 500 Judgments
 * undecided in 2 of 4 runs.
 */
export const CLUSTER_CLIENT_OPTIONS: ClusterOptions = {
  redisOptions: { maxRetriesPerRequest: null },
  retryDelayOnFailover: 1000,
  retryDelayOnClusterDown: 1000,
};

export interface ClusterNode {
  readonly port: number;
  readonly process: ChildProcess;
}

export interface RunningRedisCluster {
  readonly nodes: ClusterNode[];
  /** The startup nodes an ioredis Cluster is given (every node, masters and replicas). */
  readonly startupNodes: Array<{ host: string; port: number }>;
  /** A new ioredis Cluster on it (default options: CLUSTER_CLIENT_OPTIONS); the caller closes it. */
  connect(options?: ClusterOptions): Cluster;
  /** `redis-cli -p port …` on one node, its output trimmed. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The port of the master serving `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** Stops a node with SHUTDOWN NOSAVE (a master first lets its replica catch up); resolves once it has exited. */
  stopNode(port: number): Promise<void>;
  /** Deletes every key (FLUSHALL on each running master). */
  flush(): Promise<void>;
  /** Waits until every running node reports cluster_state:ok and `key`'s slot has a master other than `not`. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const running = new Set<RunningRedisCluster>();
process.once('exit', () => {
  for (const cluster of running) for (const node of cluster.nodes) node.process.kill('SIGKILL');
});

/** A free loopback port whose cluster bus port (port + 10000) is free too. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10000 > 65535 || taken.has(port)) continue;
    const bus = await freePort();
    if (bus === port + 10000) continue;
    taken.add(port);
    return port;
  }
}

/** A free loopback port for a node's cluster bus, none of `taken`. */
async function busPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (taken.has(port)) continue;
    taken.add(port);
    return port;
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`Redis Cluster: timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts six redis-server processes (cluster mode, no persistence, node timeout CLUSTER_NODE_TIMEOUT_MS), joins them
 * as three masters with one replica each, and resolves once every node says cluster_state:ok and every replica is
 * in sync with its master. On free loopback ports, or on the six `ports` given (a bench's own; each node's cluster
 * bus then listens on a free port).
 */
export async function startRedisCluster(options: { ports?: readonly number[] } = {}): Promise<RunningRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'judgment-cluster-'));
  const given = options.ports;
  if (given && given.length !== 6) {
    throw new Error(`Redis Cluster: six ports are needed (three masters, three replicas); got ${given.length}.`);
  }
  const taken = new Set<number>(given);
  const ports = given ? [...given] : [];
  while (ports.length < 6) ports.push(await clusterPort(taken));
  // A given port may be above 55535, where port + 10000 is no port: its bus listens on a free port, named explicitly.
  const buses: string[][] = [];
  for (let n = 0; n < 6; n++) buses.push(given ? ['--cluster-port', String(await busPort(taken))] : []);
  const nodes: ClusterNode[] = ports.map((port, n) => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        ...buses[n],
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        String(CLUSTER_NODE_TIMEOUT_MS),
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
      ],
      { stdio: 'ignore' },
    );
    child.once('error', () => undefined); // redis-server missing: the wait below names it.
    return { port, process: child };
  });
  const cli = async (port: number, ...args: string[]) =>
    (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args])).stdout.trim();
  const live = () => nodes.filter((node) => node.process.exitCode === null && node.process.signalCode === null);

  const cluster: RunningRedisCluster = {
    nodes,
    startupNodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    connect: (options = CLUSTER_CLIENT_OPTIONS) => new Cluster(cluster.startupNodes, options),
    cli,
    masterOf: async (key) => {
      const port = live()[0].port;
      const slot = Number(await cli(port, 'cluster', 'keyslot', key));
      const slots = JSON.parse(
        (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), '--json', 'cluster', 'slots'])).stdout,
      ) as Array<[number, number, [string, number, string]]>;
      const range = slots.find(([from, to]) => from <= slot && slot <= to);
      if (!range) throw new Error(`Redis Cluster: no node serves slot ${slot}.`);
      return range[2][1];
    },
    stopNode: async (port) => {
      const node = nodes.find((candidate) => candidate.port === port)!;
      const exited = once(node.process, 'exit');
      await cli(port, 'shutdown', 'nosave').catch(() => undefined); // The connection closes as it exits.
      await exited;
    },
    flush: async () => {
      for (const node of live()) {
        if ((await cli(node.port, 'role')).startsWith('master')) await cli(node.port, 'flushall');
      }
    },
    waitHealthy: (timeoutMs = 30_000) =>
      waitFor(
        'cluster_state:ok on every node, replicas in sync',
        async () => {
          for (const node of live()) {
            if (!(await cli(node.port, 'cluster', 'info')).includes('cluster_state:ok')) return false;
            const replication = await cli(node.port, 'info', 'replication');
            if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return false;
          }
          return true;
        },
        timeoutMs,
      ),
    stop: async () => {
      if (!running.delete(cluster)) return;
      await Promise.all(
        live().map(async (node) => {
          const exited = once(node.process, 'exit');
          node.process.kill('SIGKILL');
          await exited;
        }),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
  running.add(cluster);
  try {
    for (const { port } of nodes) {
      await waitFor(
        `redis-server (is it installed?) to answer on port ${port}`,
        async () => (await cli(port, 'ping')) === 'PONG',
        15_000,
      );
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    await cluster.waitHealthy();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
