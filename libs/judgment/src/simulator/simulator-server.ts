import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

/**
 * The HTTP server of a simulator. It never closes a kept-alive connection itself (`keepAliveTimeout` 0): the client
 * closes idle ones. A simulator often runs in its client's process, in tests; when a long synchronous task held that
 * process past the server's keep-alive timeout, the client sent its next request on the pooled socket and the
 * server's timer then closed it under the request (ECONNRESET, seen in a loaded CI run).
 */
export function simulatorServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer(handle);
  server.keepAliveTimeout = 0;
  return server;
}
