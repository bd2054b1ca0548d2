// Runs the `judgment` command line as a real process: the bin from its TypeScript source (scripts/register.js
// compiles it, and resolves `nestjs-judgment` as in the other suites), with only the environment given.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { REDIS_ENV } from '../support/redis';

export const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'libs', 'judgment', 'src', 'cli', 'main.ts');

/** What a run printed, and its exit status. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `judgment <args>` in `cwd` (default: the repo), with PATH, the suites' Redis port (the fixture app's queue) and `env`
 * as its whole environment.
 */
export function runBin(args: string[], env: Record<string, string | undefined>, cwd = ROOT): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', join(ROOT, 'scripts', 'register.js'), BIN, ...args],
      { cwd, env: { PATH: process.env.PATH, ...REDIS_ENV, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}
