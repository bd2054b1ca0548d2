// No `judgment` command starts the library's queue workers (issue 12): a job waiting on the assess queue (real Redis,
// this suite's own key prefix) is still waiting after `status`, `eval` and `prune` ran through the bin against an app
// with the queue on, and the Engine was asked only what the command itself asks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { REDIS, clearPrefix } from '../support/redis';
import { runBin } from './cli-process';

const KEY = 'sk-cli-workers';
const JOB = 'assess-waiting-through-the-cli';

describe('judgment CLI with the queue on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'judgment-cli-workers-'));
  const prefix = `cli-workers-${process.pid}`;
  const simulator = new JevSimulator({ apiKey: KEY });
  const assessQueue = new Queue('judgment-assess', { connection: REDIS, prefix });
  let url: string;

  const bin = (args: string[]) =>
    runBin(['--app', 'test/cli/fixture-app.module.ts#QueuedFixtureAppModule', ...args], {
      FIXTURE_DB: join(dir, 'app.sqlite'),
      FIXTURE_QUEUE_PREFIX: prefix,
      TYPESAFE_API_KEY: KEY,
      TYPESAFE_BASE_URL: url,
      JUDGMENT_RETENTION_DAYS: '30',
    });

  beforeAll(async () => {
    url = await simulator.start(0);
    // What Judge.dispatch() would have queued for a RefundAbuse (the Refund held as plain data).
    const refund = { item: 'Lamp', amount: 20, explanation: 'It broke. [[abusive=0.1]]' };
    await assessQueue.add(
      'refund-abuse',
      { judgment: { judgment: 'refund-abuse', properties: { refund: { value: refund } } } },
      { jobId: JOB },
    );
  });

  afterAll(async () => {
    await assessQueue.close();
    await clearPrefix(prefix);
    await simulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => simulator.clearLog());

  it('leaves a waiting job waiting through status, which asks no Engine', async () => {
    const run = await bin(['status', '--json']);

    expect(run.code).toBe(0);
    expect(await assessQueue.getJobState(JOB)).toBe('waiting');
    expect(simulator.requests).toHaveLength(0);
    // Each connection's assess queue is listed, with the waiting job in the default connection's.
    const { queues } = JSON.parse(run.stdout) as { queues: { name: string; waiting: number }[] };
    expect(queues[0]).toMatchObject({ name: 'judgment-assess', waiting: 1 });
  });

  it('leaves a waiting job waiting through eval, which asks the Engine once per case', async () => {
    const cases = join(dir, 'cases.json');
    writeFileSync(
      cases,
      JSON.stringify([{ subject: { item: 'Mug', amount: 8, explanation: 'Chipped.' }, expected: 'approve' }]),
    );

    const run = await bin(['eval', 'refund-abuse', `--dataset=${cases}`, '--json']);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).results[0].cases).toBe(1);
    expect(await assessQueue.getJobState(JOB)).toBe('waiting');
    expect(simulator.requests).toHaveLength(1);
  });

  it('leaves a waiting job waiting through prune', async () => {
    const run = await bin(['prune', '--json']);

    expect(run.code).toBe(0);
    expect(await assessQueue.getJobState(JOB)).toBe('waiting');
    expect(simulator.requests).toHaveLength(0);
  });
});
