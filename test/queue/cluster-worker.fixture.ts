// A queue worker process on Redis Cluster, spawned by redis-cluster.e2e-spec.ts: the assess, decide and review
// workers on an ioredis Cluster (the suite's nodes) with the prefix the README documents, on the suite's database.
// Prints `ready` once its workers run; SIGTERM closes it gracefully (SIGKILL is the test's).
import { Cluster } from 'ioredis';
import { createWorkerContext } from './queue.fixtures';
import { CLUSTER_CLIENT_OPTIONS } from '../support/redis-cluster';

async function main() {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`cluster-worker.fixture.ts needs ${name}.`);
    return value;
  };
  const nodes = env('JQ_CLUSTER_PORTS')
    .split(',')
    .map((port) => ({ host: '127.0.0.1', port: Number(port) }));
  const cluster = new Cluster(nodes, CLUSTER_CLIENT_OPTIONS);
  const app = await createWorkerContext({
    database: env('JQ_DATABASE'),
    prefix: env('JQ_PREFIX'),
    connection: cluster,
    simulatorUrl: env('JQ_SIMULATOR_URL'),
    queue: {
      concurrency: Number(env('JQ_CONCURRENCY')),
      workerOptions: {
        lockDuration: Number(env('JQ_LOCK_MS')),
        stalledInterval: Math.min(1000, Number(env('JQ_LOCK_MS')) / 4),
        maxStalledCount: 2,
      },
    },
  });
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => cluster.quit())
      .then(() => process.exit(0));
  });
  console.log('ready');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
