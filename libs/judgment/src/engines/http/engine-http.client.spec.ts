import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { EngineHttpClient, type EngineHttpSettings, retryAfterHeaders } from './engine-http.client';
import { serve } from './loopback-server.spec-helpers';

const settings = (endpoint: string): EngineHttpSettings => ({
  connection: 'jev',
  endpoint,
  timeout: 5,
  retries: 0,
  maxResponseBytes: 1024,
  retryable: new Set([429]),
  retryHeaders: retryAfterHeaders,
  authorization: (key) => ['Authorization', `Bearer ${key}`],
});

/** A forward proxy for http URLs: takes requests in absolute form, remembers each URL and forwards it. */
async function forwardProxy() {
  const urls: string[] = [];
  const server = createHttpServer((req, res) => {
    urls.push(req.url ?? '');
    const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    urls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('EngineHttpClient', () => {
  const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
  const saved = Object.fromEntries(PROXY_VARIABLES.map((name) => [name, process.env[name]]));
  beforeEach(() => PROXY_VARIABLES.forEach((name) => delete process.env[name]));
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('sends the body with the key and reads the answer, on kept-alive connections', async () => {
    const sockets = new Set<unknown>();
    const seen: Array<{ authorization?: string; body: string }> = [];
    const server = await serve((req, res, body) => {
      sockets.add(req.socket);
      seen.push({ authorization: req.headers.authorization, body });
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    try {
      const client = new EngineHttpClient(settings(`${server.url}/v1/systemone`), 'sk-1');
      for (let call = 0; call < 6; call++) {
        expect(await client.send('{"n":1}')).toMatchObject({ status: 200, text: '{"ok":true}', attempts: 1 });
      }
      expect(seen).toEqual(Array(6).fill({ authorization: 'Bearer sk-1', body: '{"n":1}' }));
      // Six calls one after the other: the pool may open a second connection while the first ends its answer.
      expect(sockets.size).toBeLessThanOrEqual(2);
    } finally {
      await server.close();
    }
  });

  it('goes through the proxy HTTP_PROXY names, unless NO_PROXY names the host', async () => {
    const server = await serve((_req, res) => res.end('{}'));
    const proxy = await forwardProxy();
    const endpoint = `${server.url}/v1/systemone`;
    try {
      process.env.HTTP_PROXY = proxy.url;
      expect((await new EngineHttpClient(settings(endpoint), null).send('{}')).status).toBe(200);
      expect(proxy.urls).toEqual([endpoint]);

      process.env.NO_PROXY = '127.0.0.1';
      expect((await new EngineHttpClient(settings(endpoint), null).send('{}')).status).toBe(200);
      expect(proxy.urls).toHaveLength(1);
      expect(server.requests()).toBe(2);
    } finally {
      await proxy.close();
      await server.close();
    }
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/elsewhere') return res.end('{"followed":true}');
      res.writeHead(302, { location: '/elsewhere' }).end();
    });
    try {
      const answer = await new EngineHttpClient(settings(`${server.url}/v1/systemone`), null).send('{}');
      expect(answer).toMatchObject({ status: 302, text: '' });
      expect(server.requests()).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('EngineHttpClient transport failures', () => {
  /** A raw TCP server answering each request's first bytes with `answer(socket)`. */
  async function rawServer(answer: (socket: Socket) => void) {
    const sockets = new Set<Socket>();
    const server = createTcpServer((socket) => {
      sockets.add(socket);
      socket.once('data', () => answer(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/systemone`,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    };
  }

  it.each([
    [
      'the connection closed halfway through the answer',
      (socket: Socket) => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"answers":');
        setTimeout(() => socket.destroy(), 20);
      },
      /^The Engine closed the connection before its answer was complete \(connection "jev", POST http:\/\/127\.0\.0\.1:\d+\/v1\/systemone\)/,
    ],
    [
      'a shorter body than its content-length, then the connection closed',
      (socket: Socket) => void socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\nconnection: close\r\n\r\n{}'),
      /^The Engine closed the connection before its answer was complete/,
    ],
    [
      'an answer that is not HTTP',
      (socket: Socket) => void socket.write('SSH-2.0-OpenSSH_9.2\r\n\r\n'),
      /^The server answered with something other than HTTP\/1\.1 \(connection "jev", .*\)\. Check that engines\.jev\.url points/,
    ],
  ])('%s fails as EngineFailed saying so', async (_case, answer, says) => {
    const server = await rawServer(answer);
    try {
      const error = await new EngineHttpClient(settings(server.url), 'sk-1')
        .send('{}')
        .catch((thrown: Error) => thrown);
      expect(error).toMatchObject({ name: 'EngineFailed', message: expect.stringMatching(says) });
    } finally {
      await server.close();
    }
  });
});
