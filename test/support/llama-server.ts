// llama.cpp's llama-server, a real OpenAI-compatible server with tiny hand-made models, for the conformance suites:
// found next to the repository (../shared/llama-server), through JUDGMENT_LLAMA_SERVER, or at /work/shared, started
// on free loopback ports through its start.sh, and watched by a recording proxy so a test can read the raw answers.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { freePort } from './service-port';

/** The variable naming llama-server's folder (the one holding start.sh and models/). */
export const LLAMA_SERVER_VARIABLE = 'JUDGMENT_LLAMA_SERVER';

/** The places looked in: the variable's folder alone when it is set, else next to the repository, then /work/shared. */
function candidates(): Array<{ folder: string; from: string }> {
  const given = process.env[LLAMA_SERVER_VARIABLE]?.trim();
  if (given) return [{ folder: resolve(given), from: LLAMA_SERVER_VARIABLE }];
  return [
    { folder: resolve(__dirname, '..', '..', '..', 'shared', 'llama-server'), from: 'next to the repository' },
    { folder: '/work/shared/llama-server', from: 'the shared folder' },
  ];
}

/** llama-server's folder; throws naming every place looked in when it is missing (the suite is part of CI). */
export function llamaServerFolder(): string {
  const places = candidates();
  const found = places.find(({ folder }) => existsSync(join(folder, 'start.sh')) && existsSync(join(folder, 'models')));
  if (found) return found.folder;
  throw new Error(
    `llama-server is missing: the conformance suite runs the openai driver against llama.cpp's llama-server and its ` +
      `tiny models, and none was found (looked in ${places.map(({ folder, from }) => `${folder} (${from})`).join(', ')}). ` +
      `Put it at ../shared/llama-server beside the repository, or set ${LLAMA_SERVER_VARIABLE} to the folder holding ` +
      'its start.sh and models/. This suite is part of CI, not optional.',
  );
}

/** One exchange the proxy saw: the request's JSON body, the answer's status, headers and raw text. */
export interface Exchange {
  readonly path: string;
  readonly request: any;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** A llama-server on a free loopback port, behind a recording proxy. */
export interface RunningLlamaServer {
  readonly model: string;
  /** The proxy's base URL (`…/v1`): what a connection is pointed at. */
  readonly url: string;
  /** llama-server's own base URL, without the proxy. */
  readonly direct: string;
  /** What went through the proxy, oldest first. */
  readonly exchanges: Exchange[];
  stop(): Promise<void>;
}

const started = new Set<RunningLlamaServer>();
process.once('exit', () => {
  for (const server of started) void server.stop();
});

/** Starts `model` (a file of models/) with extra llama-server flags; resolves once /health answers. */
export async function startLlamaServer(model: string, flags: readonly string[] = []): Promise<RunningLlamaServer> {
  const folder = llamaServerFolder();
  const port = await freePort();
  const pid = await new Promise<number>((done, fail) =>
    execFile(join(folder, 'start.sh'), [`${model}.gguf`, String(port), '--alias', model, ...flags], (error, stdout) => {
      const value = Number(stdout.trim());
      if (error || !Number.isInteger(value)) fail(error ?? new Error(`start.sh printed no pid: ${stdout}`));
      else done(value);
    }),
  );
  const exchanges: Exchange[] = [];
  const proxy = await recordingProxy(port, exchanges);
  const server: RunningLlamaServer = {
    model,
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`,
    direct: `http://127.0.0.1:${port}/v1`,
    exchanges,
    stop: async () => {
      if (!started.delete(server)) return;
      try {
        // SIGKILL: llama-server takes over a second to shut down on SIGTERM, and keeps nothing worth a clean exit.
        process.kill(pid, 'SIGKILL');
        // Gone only once it no longer answers: a test of a server that is down must not reach a dying one.
        for (let waited = 0; waited < 5000; waited += 20) {
          process.kill(pid, 0);
          await new Promise((done) => setTimeout(done, 20));
        }
      } catch {
        // Gone (or already was).
      }
      await new Promise<void>((done) => {
        proxy.close(() => done());
        proxy.closeAllConnections();
      });
    },
  };
  started.add(server);
  return server;
}

/** A loopback proxy to llama-server on `port` that records every exchange. */
async function recordingProxy(port: number, exchanges: Exchange[]): Promise<Server> {
  const proxy = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const forward = request(
        { host: '127.0.0.1', port, path: incoming.url, method: incoming.method, headers: incoming.headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const raw = Buffer.concat(parts);
            const text = raw.toString('utf8');
            let parsed: unknown = null;
            try {
              parsed = JSON.parse(body.toString('utf8'));
            } catch {
              // Not JSON: kept as null.
            }
            exchanges.push({
              path: incoming.url ?? '',
              request: parsed,
              status: answer.statusCode ?? 0,
              headers: answer.headers,
              text,
            });
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            outgoing.end(raw);
          });
        },
      );
      // The server is down: the proxy drops the connection as a dead server would refuse it.
      forward.on('error', () => incoming.socket.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  return proxy;
}
