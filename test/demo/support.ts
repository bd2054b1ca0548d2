// Helpers of the demo suites: the environment of a fresh clone with no services configured, and running the demo's
// commands as real processes.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** The repository root. */
export const ROOT = join(__dirname, '..', '..');

/** Variables that would configure a service: none of them is set on a fresh clone. */
const SERVICE_VARIABLES =
  /^(DATABASE_URL|POSTGRES_|REDIS_|QUEUE_PREFIX|SQLITE_PATH|TYPESAFE_|LAYA_|OPENAI_|JUDGMENT_|DEMO_SERVE|PORT$|SUPPORT_DESK_|NODE_ENV$)/;

/** process.env without any service configuration, plus `extra`. */
export function freshCloneEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVICE_VARIABLES.test(name)));
  return { ...env, ...extra };
}

/** How long a started command may live: it is killed before the e2e test timeout (60 s) ends its test. */
export const LIFETIME_MS = 45_000;
/** How long a command may take to exit after SIGTERM before it is SIGKILLed. */
const EXIT_DEADLINE_MS = 5_000;

/** A started command with its output so far. */
export interface Running {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Commands started and not yet exited (see stopAll()). */
const started = new Set<Running>();

/**
 * Starts a command in the repository root, in a process group of its own (see stop()). The group is SIGKILLed when
 * it is still running after `lifetimeMs`, so no command outlives its test.
 */
export function start(command: string, args: string[], env: NodeJS.ProcessEnv, lifetimeMs = LIFETIME_MS): Running {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const lifetime = setTimeout(() => signalGroup(child, 'SIGKILL'), lifetimeMs).unref();
  const running: Running = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        clearTimeout(lifetime);
        started.delete(running);
        resolve({ code, signal });
      }),
    ),
  };
  started.add(running);
  child.stdout!.on('data', (chunk) => (running.stdout += String(chunk)));
  child.stderr!.on('data', (chunk) => (running.stderr += String(chunk)));
  return running;
}

/** Sends `signal` to the command's process group (npm and the node process it runs); false when none is left. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false; // already ended
  }
}

/** SIGTERMs the command's process group, SIGKILLs it when any of it still runs after 5 s, and waits for its end. */
export async function stop(running: Running): Promise<void> {
  signalGroup(running.child, 'SIGTERM');
  const deadline = Date.now() + EXIT_DEADLINE_MS;
  while (signalGroup(running.child, 0)) {
    if (Date.now() > deadline) {
      signalGroup(running.child, 'SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await running.exited;
}

/** Stops every command still running (call it in afterEach: a test that timed out never reached its own stop()). */
export async function stopAll(): Promise<void> {
  await Promise.all([...started].map(stop));
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
