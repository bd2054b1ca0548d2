// A fixture app in a Node.js process of its own (a queue worker of a suite or a bench): started through the
// repository's register hook with the environment given, ready once it prints `ready`; stopped gracefully.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** Starts `script` (a path from the repository's root); resolves once it prints `ready`, fails if it exits first. */
export async function startFixtureProcess(
  script: string,
  env: Record<string, string>,
  /** Flags for node itself (`--cpu-prof`, …). */
  nodeFlags: readonly string[] = [],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeFlags, '-r', './scripts/register.js', script], {
    cwd: `${__dirname}/../..`,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready.`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
  });
  return child;
}

/** SIGTERM (the fixture closes its app), SIGKILL if it has not exited 10 s later; resolves once it has exited. */
export async function stopFixtureProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
