// The worker processes of the queue suites: a fixture under test/queue started as its own Node process, ready once it
// prints `ready`, stopped gracefully (SIGTERM) with SIGKILL as the backstop.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Job } from 'bullmq';

/** Spawns `test/queue/<fixture>` with `env` beside the suite's own; pushed to `into`; resolves once it is ready. */
export async function spawnWorkerProcess(
  fixture: string,
  env: Record<string, string>,
  into: ChildProcess[],
  /** Flags of node itself (a bench's `--cpu-prof`, …). */
  nodeFlags: readonly string[] = [],
): Promise<ChildProcess> {
  const worker = spawn(process.execPath, [...nodeFlags, '-r', './scripts/register.js', `test/queue/${fixture}`], {
    cwd: `${__dirname}/../..`,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  into.push(worker);
  await new Promise<void>((resolve, reject) => {
    worker.once('exit', (code) => reject(new Error(`The worker process exited (${code}) before it was ready.`)));
    worker.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
  });
  return worker;
}

/** SIGTERM (the worker closes gracefully), then SIGKILL when it has not exited within `deadlineMs`. */
export async function stopWorkerProcess(worker: ChildProcess, deadlineMs = 10_000): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = once(worker, 'exit');
  worker.kill('SIGTERM');
  const timer = setTimeout(() => worker.kill('SIGKILL'), deadlineMs);
  await exited;
  clearTimeout(timer);
}

/** Runs beyond the first, over all jobs: each stalled job taken over (or re-run after a late lock renewal). */
export const extraRuns = (jobs: Job[]): number =>
  jobs.reduce((sum, job) => sum + Math.max(0, job.attemptsStarted - 1), 0);
