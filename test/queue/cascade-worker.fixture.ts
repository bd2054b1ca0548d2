// A queue worker process for cascade-worker-kill.e2e-spec.ts: the assess (both connections' queues) and decide
// workers of the cascade Judgment. Prints `ready` once its workers run; SIGTERM closes it (SIGKILL is the test's).
import { QueuedClaim, cascadeEngines } from './cascade.fixtures';
import { createWorkerContext } from './queue.fixtures';

async function main() {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`cascade-worker.fixture.ts needs ${name}.`);
    return value;
  };
  const app = await createWorkerContext({
    database: env('JQ_DATABASE'),
    prefix: env('JQ_PREFIX'),
    simulatorUrl: env('JQ_CHEAP_URL'),
    judgments: [QueuedClaim],
    options: cascadeEngines(env('JQ_CHEAP_URL'), env('JQ_STRONG_URL')),
    queue: {
      concurrency: 16,
      // Short locks, as in worker.fixture.ts: a killed worker's jobs are taken over within about five seconds.
      workerOptions: { lockDuration: 4000, stalledInterval: 1000, maxStalledCount: 2 },
    },
  });
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
  console.log('ready');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
