import { startJevSimulator } from 'nestjs-judgment/simulator';

const decisionRequest = {
  model: 'jev-1.13.0',
  state: 'Refund me. [[abusive=0.9]]',
  questions: { abusive: { type: 'noul', instructions: 'Is this abusive?' } },
};

const ask = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/systemone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(decisionRequest),
    signal: AbortSignal.timeout(2000),
  });

describe('startJevSimulator', () => {
  it('listens on a free loopback port by default and answers until stopped', async () => {
    const sim = await startJevSimulator();
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.url).not.toMatch(/:0$/);

    const reply = await ask(sim.url);
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { answers: Record<string, unknown> }).answers.abusive).toEqual({
      type: 'noul',
      noul: 0.9,
    });

    const url = sim.url;
    await sim.stop();
    await expect(ask(url)).rejects.toThrow();
  });

  it('serves the given faults in order to the first decision requests, then answers', async () => {
    const sim = await startJevSimulator({ faults: [{ status: 529 }, { status: 500 }] });
    try {
      expect((await ask(sim.url)).status).toBe(529);
      expect((await ask(sim.url)).status).toBe(500);
      expect((await ask(sim.url)).status).toBe(200);
      expect(sim.pendingFaults).toEqual([]);
    } finally {
      await sim.stop();
    }
  });

  it('passes the simulator options on: mode, key, model and latency', async () => {
    const sim = await startJevSimulator({ mode: 'laya', apiKey: 'laya-key', latencyMs: 7, model: 'jev-2.0.0' });
    try {
      expect(sim).toMatchObject({ mode: 'laya', model: 'jev-2.0.0', latencyMs: 7 });
      expect((await ask(sim.url)).status).toBe(401);
      const reply = await ask(sim.url, { authorization: 'Bearer laya-key' });
      expect(((await reply.json()) as { model: string }).model).toBe('laya-rl-agent');
    } finally {
      await sim.stop();
    }
  });

  it('rejects when the port is taken', async () => {
    const first = await startJevSimulator();
    try {
      const port = Number(new URL(first.url).port);
      await expect(startJevSimulator({ port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.stop();
    }
  });
});
