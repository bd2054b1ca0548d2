import { JevSimulator } from './jev-simulator';

const BODY = JSON.stringify({
  model: 'jev-1.13.0',
  state: { text: 'A refund, please.' },
  questions: { refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' } },
});

function ask(url: string, key: string) {
  return fetch(`${url}/v1/systemone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: BODY,
  });
}

describe('JevSimulator per-key limits', () => {
  let sim: JevSimulator;
  afterEach(() => sim.stop());

  it('answers 429 with retry-after and retry-after-ms once a key used its requests, and counts the refusals', async () => {
    sim = new JevSimulator({ limits: { requests: 2, windowMs: 5_000 } });
    const url = await sim.start();
    expect((await ask(url, 'a')).status).toBe(200);
    expect((await ask(url, 'a')).status).toBe(200);
    const refused = await ask(url, 'a');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: { error_type: string } }).detail.error_type).toBe('rate_limit_error');
    const ms = Number(refused.headers.get('retry-after-ms'));
    expect(ms).toBeGreaterThan(4_000);
    expect(ms).toBeLessThanOrEqual(5_000);
    expect(refused.headers.get('retry-after')).toBe(String(Math.ceil(ms / 1000)));
    // Another key has its own window.
    expect((await ask(url, 'b')).status).toBe(200);
    expect(sim.rateLimited).toBe(1);
  });

  it('opens a new window once the last one ended', async () => {
    sim = new JevSimulator({ limits: { requests: 1, windowMs: 200 } });
    const url = await sim.start();
    expect((await ask(url, 'a')).status).toBe(200);
    expect((await ask(url, 'a')).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 220));
    expect((await ask(url, 'a')).status).toBe(200);
  });

  it('refuses a key whose answered input tokens reached the token limit', async () => {
    sim = new JevSimulator({ limits: { tokens: 1, windowMs: 5_000 } });
    const url = await sim.start();
    expect((await ask(url, 'a')).status).toBe(200);
    expect((await ask(url, 'a')).status).toBe(429);
    expect(sim.rateLimited).toBe(1);
  });
});
