import {
  startOpenAiSimulator,
  type RunningOpenAiSimulator,
  type StartOpenAiSimulatorOptions,
} from './openai-simulator';

const running: RunningOpenAiSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

async function start(options: StartOpenAiSimulatorOptions = {}): Promise<RunningOpenAiSimulator> {
  const sim = await startOpenAiSimulator(options);
  running.push(sim);
  return sim;
}

const LETTERS = (count: number) =>
  Array.from({ length: count }, (_, index) => `${String.fromCharCode(65 + index)}) queue-${index}`).join('\n');

/** One completion request for `prompt`, as the driver sends it. */
async function complete(base: string, prompt: string, extra: Record<string, unknown> = {}, path = '/chat/completions') {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'sim-4o-2026-09-17',
      messages: [{ role: 'user', content: prompt }],
      max_tokens: 1,
      temperature: 0,
      logprobs: true,
      top_logprobs: 20,
      ...extra,
    }),
  });
  const body = (await response.json()) as Record<string, any>;
  const top = (body.choices?.[0]?.logprobs?.content?.[0]?.top_logprobs ?? []) as Array<Record<string, any>>;
  return { response, body, top };
}

const mass = (top: Array<Record<string, any>>, token: string) =>
  top.filter((entry) => entry.token === token).reduce((sum, entry) => sum + Math.exp(entry.logprob), 0);

describe('the OpenAI simulator, as OpenAI answers', () => {
  it('returns exactly the top_logprobs asked for, with bytes and no token ids', async () => {
    const sim = await start();
    for (const count of [1, 5, 20]) {
      const { top } = await complete(sim.url, 'Is it?', { top_logprobs: count });
      expect(top).toHaveLength(count);
      for (const entry of top) {
        expect(entry).not.toHaveProperty('id');
        expect(Buffer.from(entry.bytes).toString('utf8')).toBe(entry.token);
      }
      const total = top.reduce((sum, entry) => sum + Math.exp(entry.logprob), 0);
      expect(total).toBeLessThanOrEqual(1);
    }
  });

  it('sends the request id header and refusal fields, and checks the model', async () => {
    const sim = await start();
    const { response, body } = await complete(sim.url, 'Is it?');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-ratelimit-limit-requests')).not.toBeNull();
    expect(body.choices[0].message.refusal).toBeNull();
    expect((await complete(sim.url, 'Is it?', { model: 'gpt-4o' })).response.status).toBe(404);
  });

  it('caps top_logprobs at topLogprobsCap, as some Azure versions do', async () => {
    const sim = await start({ topLogprobsCap: 5 });
    expect((await complete(sim.url, 'Is it?')).top).toHaveLength(5);
  });
});

describe('the OpenAI simulator, as llama-server answers (dialect llama-server)', () => {
  it('sends token ids and bytes, special tokens as "" told apart by id, and exactly the count asked', async () => {
    const sim = await start({ dialect: 'llama-server' });
    const { top, body } = await complete(sim.root, 'Is it?', { top_logprobs: 30 });
    expect(top).toHaveLength(30);
    for (const entry of top) expect(Number.isInteger(entry.id)).toBe(true);
    const specials = top.filter((entry) => entry.token === '');
    expect(specials.length).toBeGreaterThanOrEqual(2);
    expect(new Set(specials.map((entry) => entry.id)).size).toBe(specials.length);
    expect(new Set(top.map((entry) => entry.id)).size).toBe(top.length);
    expect(body.choices[0].message).toEqual({ role: 'assistant', content: expect.any(String) });
    expect(body.choices[0].logprobs).not.toHaveProperty('refusal');
  });

  it('ignores the model asked and names its own, sends no request-id or rate-limit header, serves with and without /v1', async () => {
    const sim = await start({ dialect: 'llama-server', model: 'tiny-judge' });
    for (const path of ['/chat/completions', '/v1/chat/completions']) {
      const { response, body } = await complete(sim.root, 'Is it?', { model: 'gpt-4o-mini-2024-07-18' }, path);
      expect(response.status).toBe(200);
      expect(body.model).toBe('tiny-judge');
      expect(body.id).toMatch(/^chatcmpl-/);
      expect(response.headers.get('x-request-id')).toBeNull();
      expect([...response.headers.keys()].filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
    }
    // The body's id is what the log records as the request id.
    expect(sim.requests[0].requestId).toMatch(/^chatcmpl-/);
    const missing = await fetch(`${sim.root}/v1/nothing`, { method: 'POST' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { message: 'File Not Found', type: 'not_found_error', code: 404 } });
  });

  it('answers a missing or wrong key 401 "Invalid API Key"', async () => {
    const sim = await start({ dialect: 'llama-server', apiKey: 'sekret' });
    const { response, body } = await complete(sim.root, 'Is it?');
    expect(response.status).toBe(401);
    expect(body.error.message).toBe('Invalid API Key');
  });
});

describe('the simulated model behaviours', () => {
  it('chatty: "I" and "The" take almost all the mass, and "I" is also the 9th option letter', async () => {
    const sim = await start({ behaviour: 'chatty' });
    const { top } = await complete(sim.url, `Which queue?\nOptions:\n${LETTERS(10)}\n\nAnswer with the letter.`);
    expect(top[0].token).toBe('I');
    expect(mass(top, 'I') + mass(top, 'The')).toBeGreaterThan(0.95);
    expect(mass(top, 'B')).toBeLessThan(0.01);
  });

  it('collapsed: the favourite answer at about 100 % whatever the steering asks', async () => {
    const sim = await start({ behaviour: 'collapsed' });
    const { top } = await complete(sim.url, 'Is it? [[p=0.7]]');
    expect(top[0].token).toBe('yes');
    expect(top[0].logprob).toBeGreaterThan(-1e-5);
    expect(mass(top, 'no')).toBeLessThan(1e-6);
  });

  it('switches behaviour while running (behave), from the next request on', async () => {
    const sim = await start();
    expect((await complete(sim.url, 'Is it? [[p=0.7]]')).top[0].logprob).toBeLessThan(-0.1);
    sim.behave('collapsed');
    expect(sim.behaviour).toBe('collapsed');
    expect((await complete(sim.url, 'Is it? [[p=0.7]]')).top[0].logprob).toBeGreaterThan(-1e-5);
    expect(() => sim.behave('rude' as never)).toThrow('Unknown behaviour "rude"');
  });

  it('end-of-text: the special token "" leads, as a llama-server model that wants to stop', async () => {
    const sim = await start({ behaviour: 'end-of-text', dialect: 'llama-server' });
    const { top, body } = await complete(sim.root, 'Is it?');
    expect(top[0]).toMatchObject({ token: '', id: 32000, bytes: [] });
    expect(body.choices[0].finish_reason).toBe('stop');
  });

  it('sentinels: the top entry at 0 and every other at -9999', async () => {
    const sim = await start({ behaviour: 'sentinels' });
    const { top } = await complete(sim.url, 'Is it?');
    expect(top[0].logprob).toBe(0);
    expect(top.slice(1).every((entry) => entry.logprob === -9999)).toBe(true);
  });
});
