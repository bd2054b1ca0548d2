// A Redis server of the bench's own on a free port, so `INFO commandstats` counts only the bench's commands (the
// shared Redis serves everyone's tests). Import it first: it sets JUDGMENT_TEST_REDIS_PORT before the queue fixtures
// read it, and stops the server when the process exits.
import { execFileSync, spawn } from 'node:child_process';
import IORedis from 'ioredis';

const port = 20_000 + (process.pid % 20_000);
process.env.JUDGMENT_TEST_REDIS_PORT = String(port);
const server = spawn(
  'redis-server',
  ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
  { stdio: 'ignore' },
);
server.unref(); // never what keeps the bench running
process.once('exit', () => server.kill('SIGTERM'));

/** The private server, once it answers PING: a client, its pid (for its CPU time), and how to stop it. */
export async function privateRedis(): Promise<{ client: IORedis; pid: number; stop(): void }> {
  for (let tries = 0; tries < 50; tries++) {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
      const client = new IORedis({ host: '127.0.0.1', port });
      const stop = () => {
        client.disconnect();
        server.kill('SIGTERM');
      };
      return { client, pid: server.pid!, stop };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`The bench's redis-server on port ${port} did not start.`);
}

/** Calls per command since the server started (`INFO commandstats`). */
export async function commandCalls(client: IORedis): Promise<Map<string, number>> {
  const info = await client.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1], Number(match[2]));
  return calls;
}
