// A queue worker process, spawned by worker-kill.e2e-spec.ts: the assess and decide workers on the suite's Redis
// prefix and database. Prints `ready` once its workers run; SIGTERM closes it gracefully (SIGKILL is the test's).
// JQ_KILL_AFTER_RECORDED=N: the process SIGKILLs itself as the Nth answer it recorded is announced, before its job
// goes on (the moment between the record's INSERT and the rest of the job).
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AssessmentCompleted } from 'nestjs-judgment';
import { createWorkerContext } from './queue.fixtures';

async function main() {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`worker.fixture.ts needs ${name}.`);
    return value;
  };
  const app = await createWorkerContext({
    database: env('JQ_DATABASE'),
    prefix: env('JQ_PREFIX'),
    simulatorUrl: env('JQ_SIMULATOR_URL'),
    queue: {
      concurrency: Number(env('JQ_CONCURRENCY')),
      // Short locks: a killed worker's jobs count as stalled, and are taken over, within about five seconds. A job
      // may stall twice, so a busy machine delaying a lock renewal does not fail it.
      workerOptions: { lockDuration: 4000, stalledInterval: 1000, maxStalledCount: 2 },
    },
  });
  const killAfter = Number(process.env.JQ_KILL_AFTER_RECORDED ?? 0);
  if (killAfter > 0) {
    let recorded = 0;
    app.get(EventEmitter2).on(AssessmentCompleted.NAME, (event: AssessmentCompleted) => {
      if (event.record && ++recorded === killAfter) process.kill(process.pid, 'SIGKILL');
    });
  }
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
  console.log('ready');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
