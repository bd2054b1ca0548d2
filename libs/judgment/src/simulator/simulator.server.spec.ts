import { globalAgent, request } from 'node:http';
import { JevSimulator } from './jev-simulator';
import { OpenAiSimulator } from './openai-simulator';

/** GET `url` on Node's default keep-alive agent (as most HTTP clients do); rejects with the socket's error. */
function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: globalAgent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Holds the event loop, as a long synchronous task in the same process (a type-check, say) does. */
function hold(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

describe('a simulator in its client process', () => {
  // A loaded CI run: the loop was held past the server's keep-alive timeout, the client sent its next request on the
  // pooled socket, and the server's timer then closed that socket: ECONNRESET. 6.5 s passes Node's default keep-alive
  // timeout (5 s, plus its 1 s grace), which the OpenAI simulator once had.
  it.each([
    ['OpenAI', () => new OpenAiSimulator(), '/models'],
    ['Jev', () => new JevSimulator(), '/health'],
  ])(
    'the %s simulator serves a request sent on a kept-alive socket after the loop was held',
    async (_, make, path) => {
      const simulator = make();
      const url = `${await simulator.start()}${path}`;
      try {
        expect(await get(url)).toBe(200);
        hold(6_500);
        expect(await get(url)).toBe(200);
      } finally {
        await simulator.stop();
      }
    },
    20_000,
  );
});
