// Helpers of the demo suites: the environment of a fresh clone with no services configured, and running the demo's
// commands as real processes.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The repository root. */
export const ROOT = join(__dirname, '..', '..');

/** Variables that would configure a service: none of them is set on a fresh clone. */
const SERVICE_VARIABLES =
  /^(DATABASE_URL|POSTGRES_|REDIS_|QUEUE_PREFIX|SQLITE_PATH|TYPESAFE_|LAYA_|JUDGMENT_|DEMO_SERVE|PORT$|SUPPORT_DESK_|NODE_ENV$)/;

/** process.env without any service configuration, plus `extra`. */
export function freshCloneEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVICE_VARIABLES.test(name)));
  return { ...env, ...extra };
}

/** A started command with its output so far. */
export interface Running {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a command in the repository root, in a process group of its own (see stop()). */
export function start(command: string, args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const running: Running = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout!.on('data', (chunk) => (running.stdout += String(chunk)));
  child.stderr!.on('data', (chunk) => (running.stderr += String(chunk)));
  return running;
}

/** Sends SIGTERM to the command's process group (npm and the node process it runs) and waits for its end. */
export async function stop(running: Running): Promise<void> {
  try {
    process.kill(-running.child.pid!, 'SIGTERM');
  } catch {
    // already ended
  }
  await running.exited;
}

/** Runs a command to its end. */
export async function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const running = start(command, args, env);
  const { code } = await running.exited;
  return { code, stdout: running.stdout, stderr: running.stderr };
}

/** Resolves once the command printed `text` on stdout (or rejects when it exits first). */
export async function printed(running: Running, text: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  void running.exited.then(() => (ended = true));
  while (!running.stdout.includes(text)) {
    if (ended || Date.now() > deadline) {
      throw new Error(`"${text}" was not printed.\nstdout:\n${running.stdout}\nstderr:\n${running.stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A loopback port nothing listens on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
