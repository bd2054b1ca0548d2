import { JevSimulator } from './jev-simulator';
import { OpenAiSimulator } from './openai-simulator';

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

/**
 * Runs `steps` with the simulators' clock (`Date.now`) held at the moment it starts; `moveTo(ms)` sets it that many
 * milliseconds later. Windows then end when the test says, not when a loaded machine gets round to the next request.
 */
async function onClock(steps: (moveTo: (ms: number) => void) => Promise<void>): Promise<void> {
  const start = Date.now();
  const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
  try {
    await steps((ms) => clock.mockReturnValue(start + ms));
  } finally {
    clock.mockRestore();
  }
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
    sim = new JevSimulator({ limits: { requests: 1, windowMs: 5_000 } });
    const url = await sim.start();
    await onClock(async (moveTo) => {
      expect((await ask(url, 'a')).status).toBe(200);
      expect((await ask(url, 'a')).status).toBe(429);
      moveTo(5_001);
      expect((await ask(url, 'a')).status).toBe(200);
    });
  });

  it('refuses a key whose answered input tokens reached the token limit', async () => {
    sim = new JevSimulator({ limits: { tokens: 1, windowMs: 5_000 } });
    const url = await sim.start();
    expect((await ask(url, 'a')).status).toBe(200);
    expect((await ask(url, 'a')).status).toBe(429);
    expect(sim.rateLimited).toBe(1);
  });
});

describe('OpenAiSimulator per-key limits (the same windows as the Jev modes)', () => {
  let sim: OpenAiSimulator;
  afterEach(() => sim.stop());

  const chat = (url: string, headers: Record<string, string>, path = '/chat/completions') =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        model: 'sim-4o-2026-09-17',
        messages: [{ role: 'user', content: 'Does the customer ask for a refund? Answer yes or no.' }],
        max_tokens: 1,
        logprobs: true,
        top_logprobs: 5,
      }),
    });

  it('answers 429 in the OpenAI shape with retry-after, retry-after-ms and x-ratelimit-reset-requests', async () => {
    sim = new OpenAiSimulator({ limits: { requests: 2, windowMs: 5_000 } });
    const url = await sim.start();
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    expect((await chat(url, bearer('a'))).status).toBe(200);
    const answered = await chat(url, bearer('a'));
    expect(answered.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const refused = await chat(url, bearer('a'));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    const ms = Number(refused.headers.get('retry-after-ms'));
    expect(ms).toBeGreaterThan(4_000);
    expect(ms).toBeLessThanOrEqual(5_000);
    expect(refused.headers.get('retry-after')).toBe(String(Math.ceil(ms / 1000)));
    expect(refused.headers.get('x-ratelimit-reset-requests')).toBe(`${ms}ms`);
    // Another key, and an Azure api-key, have their own windows.
    expect((await chat(url, bearer('b'))).status).toBe(200);
    const azure = await chat(
      url.replace(/\/v1$/, ''),
      { 'api-key': 'a' },
      '/openai/deployments/d/chat/completions?api-version=2024-10-21',
    );
    expect(azure.status).toBe(200);
    expect(sim.rateLimited).toBe(1);
  });

  it('refuses a key whose answered prompt tokens reached the token limit, and opens a new window later', async () => {
    sim = new OpenAiSimulator({ limits: { tokens: 1, windowMs: 5_000 } });
    const url = await sim.start();
    await onClock(async (moveTo) => {
      expect((await chat(url, {})).status).toBe(200);
      expect((await chat(url, {})).status).toBe(429);
      moveTo(5_001);
      expect((await chat(url, {})).status).toBe(200);
    });
    expect(sim.rateLimited).toBe(1);
  });
});
