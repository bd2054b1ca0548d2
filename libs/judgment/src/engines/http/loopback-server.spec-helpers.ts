// Test helpers for the drivers' hostile-server tests: a raw node:http server on the loopback address that answers
// every request as the test says, counts requests, and cuts open sockets when closed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback server answering every request with `handler`; counts requests; close() cuts open sockets. */
export async function serve(handler: Handler) {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The error a promise rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}
