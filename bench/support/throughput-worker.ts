// A worker process of bench/worker-throughput.bench.ts: the assess, decide and review workers (queue.concurrency
// BW_CONCURRENCY) on the bench's database and BullMQ prefix, asking the simulator through a connection with the limits
// in BW_LIMITS (JSON), counted under BW_LIMITER_PREFIX; on one Redis (JUDGMENT_TEST_REDIS_PORT), or on a Redis Cluster when BW_CLUSTER_PORTS lists its
// nodes. Prints `ready` once its workers run; SIGUSR2 prints its event loop's delay; SIGTERM closes it.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Cluster } from 'ioredis';
import { API_KEY, MODEL, createWorkerContext } from '../../test/queue/queue.fixtures';
import { CLUSTER_CLIENT_OPTIONS } from '../../test/support/redis-cluster';

async function main() {
  const env = (name: string) => {
    const value = process.env[name];
    if (value === undefined) throw new Error(`throughput-worker.ts needs ${name}.`);
    return value;
  };
  const ports = process.env.BW_CLUSTER_PORTS;
  const cluster = ports
    ? new Cluster(
        ports.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })),
        CLUSTER_CLIENT_OPTIONS,
      )
    : undefined;
  const url = env('BW_SIMULATOR_URL');
  const app = await createWorkerContext({
    database: env('BW_DATABASE'),
    prefix: env('BW_PREFIX'),
    connection: cluster,
    simulatorUrl: url,
    queue: { concurrency: Number(env('BW_CONCURRENCY')) },
    // As the README sizes it: each job writes its record, and each decide job its Outcome.
    poolSize: 2 * Number(env('BW_CONCURRENCY')),
    options: {
      engines: {
        jev: { driver: 'jev', key: API_KEY, url, model: MODEL, retries: 0, limits: JSON.parse(env('BW_LIMITS')) },
      },
      limiter: { prefix: env('BW_LIMITER_PREFIX') },
    },
  });
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => cluster?.quit())
      .then(() => process.exit(0));
  });
  // SIGUSR2: prints the event loop's delay since the last one (`delay <p50 ms> <p99 ms>`) and starts anew.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on('SIGUSR2', () => {
    console.log(`delay ${delay.percentile(50) / 1e6} ${delay.percentile(99) / 1e6}`);
    delay.reset();
  });
  console.log('ready');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
