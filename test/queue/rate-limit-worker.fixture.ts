// A queue worker process of rate-limit.e2e-spec.ts: the assess and decide workers on the suite's Redis prefix and
// database, asking the simulator through a connection with the limits given in JQ_LIMITS (JSON, or empty for none).
// JQ_RETRIES (default 0) and JQ_PAUSE=false (the driver retries 429s in the job) let bench/rate-limit.bench.ts run
// the baseline. Prints `ready` once its workers run; SIGTERM closes it.
import { API_KEY, MODEL, createWorkerContext } from './queue.fixtures';

async function main() {
  const env = (name: string) => {
    const value = process.env[name];
    if (value === undefined) throw new Error(`rate-limit-worker.fixture.ts needs ${name}.`);
    return value;
  };
  const limits = env('JQ_LIMITS') === '' ? undefined : JSON.parse(env('JQ_LIMITS'));
  const app = await createWorkerContext({
    database: env('JQ_DATABASE'),
    prefix: env('JQ_PREFIX'),
    simulatorUrl: env('JQ_SIMULATOR_URL'),
    // The worker's name is stored on every job it processes (job.processedBy), so the test sees who did what.
    queue: {
      concurrency: Number(env('JQ_CONCURRENCY')),
      workerOptions: { name: env('JQ_NAME') },
      pauseOnRateLimit: process.env.JQ_PAUSE !== 'false',
    },
    options: {
      engines: {
        jev: {
          driver: 'jev',
          key: API_KEY,
          url: env('JQ_SIMULATOR_URL'),
          model: MODEL,
          retries: Number(process.env.JQ_RETRIES ?? 0),
          limits,
        },
      },
      limiter: { prefix: `${env('JQ_PREFIX')}:limits` },
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
