// Ports of the servers the e2e suites use: the shared ones from the environment, so a whole run can point at private
// servers, and free ports for the servers a fault test starts itself (so two runs never meet on a fixed port).
import { type AddressInfo, createServer } from 'node:net';

/** `process.env[name]` as a TCP port, or `fallback` when unset; anything else is refused with the variable's name. */
export function servicePort(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    throw new Error(`${name} must be a TCP port (1-65535); got "${raw}". Unset it to use ${fallback}.`);
  }
  return port;
}

/** A loopback port nothing listens on now, for a server a test starts itself (a fault test's PostgreSQL or Redis). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
