// A private PostgreSQL server for fault tests: its own data directory and port, so a test can stop and start it
// without touching the shared server every other suite uses. Needs Debian's PostgreSQL binaries; as root the server
// runs as the `postgres` user (PostgreSQL refuses to run as root).
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The newest installed PostgreSQL's bin directory. */
function binaries(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return join('/usr/lib/postgresql', versions[0], 'bin');
}

export class PrivatePostgres {
  private readonly directory: string;
  private readonly data: string;

  private constructor(readonly port: number) {
    this.directory = mkdtempSync(join(tmpdir(), `judgment-pg-${port}-`));
    this.data = join(this.directory, 'data');
  }

  /** Creates a cluster (trust auth, user `postgres`) in a temporary directory and starts it on `port`. */
  static create(port: number): PrivatePostgres {
    const server = new PrivatePostgres(port);
    if (process.getuid?.() === 0) {
      const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString());
      chownSync(server.directory, id('-u'), id('-g'));
    }
    server.run('initdb', ['-D', server.data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    server.start();
    return server;
  }

  start(): void {
    const settings = `-p ${this.port} -k ${this.directory} -c listen_addresses=127.0.0.1 -c fsync=off`;
    this.run('pg_ctl', ['-D', this.data, '-o', settings, '-l', join(this.directory, 'log'), '-w', 'start']);
  }

  /** Stops the server at once (`-m immediate`: open connections are cut, as in a crash). */
  stop(): void {
    this.run('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', 'stop']);
  }

  /** Stops the server if it runs, and deletes its directory. */
  destroy(): void {
    try {
      this.stop();
    } catch {
      // already stopped
    }
    rmSync(this.directory, { recursive: true, force: true });
  }

  private run(command: string, args: string[]): void {
    const binary = join(binaries(), command);
    const [file, argv] =
      process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
    execFileSync(file, argv, { stdio: 'pipe' });
  }
}
