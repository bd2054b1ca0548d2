import {
  buildAnswer,
  choiceConfidence,
  entropyConfidence,
  parseSteering,
  questionHashText,
  questionUnits,
  scoreConfidence,
  toUnits,
} from './simulated-answers';
import { fnv1a } from '../fingerprint/seeded-random';
import { JevSimulator } from './jev-simulator';
import type { JevSimulatorOptions } from './simulator.types';
import { validateJev } from './request.validation';

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function call(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Reply> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 2000) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

function post(
  base: string,
  body: unknown,
  headers: Record<string, string> = {},
  timeoutMs?: number,
  path = '/v1/systemone',
): Promise<Reply> {
  return call(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    timeoutMs,
  });
}

const QUESTIONS = {
  refund: { type: 'noul', instructions: 'Does the customer explicitly ask for a refund?' },
  department: {
    type: 'choice',
    instructions: 'Which team should handle this?',
    criteria: { billing: 'Payments, invoicing, refunds', technical: 'Bugs, outages', sales: null, other: null },
  },
  severity: {
    type: 'score',
    instructions: 'How badly does the problem affect the customer?',
    criteria: ['Cosmetic', 'Annoying', 'Degrading', 'Blocking'],
  },
};

const request = (state: unknown, model = 'jev-latest', questions: unknown = QUESTIONS) => ({ model, state, questions });

/** A client that gives up fails with the timeout error of `AbortSignal.timeout`. */
const TIMED_OUT = { name: 'TimeoutError' };
/** A connection the server closed fails fetch with a TypeError (`fetch failed`), not a timeout. */
const CLOSED = { name: 'TypeError' };

/** Polls until the simulator has received `count` requests in all (they may still wait for their answer). */
async function arrived(sim: JevSimulator, count: number, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (sim.requestCount < count) {
    if (Date.now() > deadline) throw new Error(`Only ${sim.requestCount} of ${count} requests arrived.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The answers of a Jev request when no marker steers them: derived from the text alone. */
function unsteered(body: ReturnType<typeof request>): unknown {
  const result = validateJev(body);
  if (!result.ok) throw new Error('invalid request');
  const text = typeof body.state === 'string' ? body.state : JSON.stringify(body.state);
  const answers = Object.fromEntries(
    result.questions.map((q) => [
      q.id,
      buildAnswer(q, questionUnits(q, fnv1a(text), new Map(), 100, questionHashText(q)), 100, false),
    ]),
  );
  return JSON.parse(JSON.stringify(answers));
}

const is2dp = (x: number) => Math.abs(Math.round(x * 100) - x * 100) < 1e-9;
const is4dp = (x: number) => Math.abs(Math.round(x * 10000) - x * 10000) < 1e-7;
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

describe('JevSimulator (jev mode)', () => {
  const sim = new JevSimulator({ apiKey: 'apikey_test' });
  const auth = { authorization: 'Bearer apikey_test' };
  let base: string;

  beforeAll(async () => {
    base = await sim.start();
  });
  afterAll(() => sim.stop());
  afterEach(() => {
    sim.clearFaults().clearLog().setLatency(0);
  });

  it('answers every question with the Jev shapes, 2-dp numbers and a request id', async () => {
    const r = await post(base, request({ subject: 'Duplicate charge', body: 'Billed twice for March.' }), auth);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('x-typesafe-request-id')).toMatch(/^req_[0-9a-f]{16}$/);
    expect(Object.keys(r.json)).toEqual(['model', 'answers', 'usage']);
    expect(r.json.model).toBe('jev-1.13.0');
    expect(Object.keys(r.json.answers)).toEqual(['refund', 'department', 'severity']);

    const { refund, department, severity } = r.json.answers;
    expect(Object.keys(refund)).toEqual(['type', 'noul']);
    expect(refund.noul).toBeGreaterThanOrEqual(0);
    expect(refund.noul).toBeLessThanOrEqual(1);
    expect(is2dp(refund.noul)).toBe(true);

    expect(Object.keys(department)).toEqual(['type', 'choice', 'confidence', 'probabilities']);
    expect(Object.keys(department.probabilities)).toEqual(['billing', 'technical', 'sales', 'other']);
    expect(sum(department.probabilities)).toBeCloseTo(1, 9);
    const probs = Object.values(department.probabilities) as number[];
    expect(probs.every(is2dp)).toBe(true);
    expect(department.probabilities[department.choice]).toBe(Math.max(...probs));
    expect(department.confidence).toBe(Math.round(choiceConfidence(probs) * 100) / 100);

    expect(Object.keys(severity)).toEqual(['type', 'score', 'confidence', 'legend', 'probabilities']);
    expect(severity.legend).toEqual({ 0: 'Cosmetic', 1: 'Annoying', 2: 'Degrading', 3: 'Blocking' });
    expect(Object.keys(severity.probabilities)).toEqual(['0', '1', '2', '3']);
    expect(sum(severity.probabilities)).toBeCloseTo(1, 9);
    const expected = Object.entries(severity.probabilities).reduce((a, [i, p]) => a + Number(i) * (p as number), 0);
    expect(severity.score).toBeCloseTo(expected, 9);
    expect(is2dp(severity.score) && is2dp(severity.confidence)).toBe(true);

    expect(r.json.usage.input_tokens).toBe(
      Math.ceil(
        (JSON.stringify({ subject: 'Duplicate charge', body: 'Billed twice for March.' }).length +
          JSON.stringify(QUESTIONS).length) /
          4,
      ),
    );
    expect(r.json.usage.output_tokens).toBeGreaterThan(0);
  });

  it('is deterministic and text-derived', async () => {
    const a = await post(base, request('I was charged twice, refund me.'), auth);
    const b = await post(base, request('I was charged twice, refund me.', 'jev-1.13.0'), auth);
    expect(b.json.answers).toEqual(a.json.answers);
    expect(b.headers.get('x-typesafe-request-id')).not.toBe(a.headers.get('x-typesafe-request-id'));
    // Many different texts must not all collapse onto the same answers.
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const r = await post(base, request(`Ticket number ${i}: the export is broken.`), auth);
      seen.add(JSON.stringify(r.json.answers));
    }
    expect(seen.size).toBeGreaterThan(6);
    // The question text matters too, not only the state.
    const other = await post(
      base,
      request('I was charged twice, refund me.', 'jev-latest', {
        refund: { type: 'noul', instructions: 'Is the customer polite?' },
      }),
      auth,
    );
    const again = await post(
      base,
      request('I was charged twice, refund me.', 'jev-latest', {
        refund: { type: 'noul', instructions: 'Is the customer polite?' },
      }),
      auth,
    );
    expect(other.json.answers).toEqual(again.json.answers);
  });

  it('keeps every answer valid over many generated requests', async () => {
    for (let i = 0; i < 40; i++) {
      const n = 2 + (i % 12);
      const criteria: Record<string, string | null> = {};
      for (let k = 0; k < n; k++) criteria[`label_${k}`] = k % 3 === 0 ? null : `Option ${k}`;
      const levels = Array.from({ length: 2 + (i % 9) }, (_, k) => `Level ${k}`);
      const r = await post(
        base,
        request(`text ${i}`, 'jev-latest', {
          c: { type: 'choice', instructions: `q${i}`, criteria },
          s: { type: 'score', instructions: `q${i}`, criteria: levels },
        }),
        auth,
      );
      expect(r.status).toBe(200);
      const { c, s } = r.json.answers;
      expect(Object.keys(c.probabilities)).toEqual(Object.keys(criteria));
      expect(sum(c.probabilities)).toBeCloseTo(1, 9);
      expect(Object.values(c.probabilities).every((p: any) => p >= 0 && p <= 1 && is2dp(p))).toBe(true);
      expect(c.confidence).toBeGreaterThanOrEqual(0);
      expect(c.confidence).toBeLessThanOrEqual(1);
      expect(Object.keys(s.probabilities)).toEqual(levels.map((_, k) => String(k)));
      expect(sum(s.probabilities)).toBeCloseTo(1, 9);
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.score).toBeLessThanOrEqual(levels.length - 1);
    }
  });

  it('resolves aliases to the configured version and refuses unknown models', async () => {
    expect((await post(base, request('x', 'jev-preview'), auth)).json.model).toBe('jev-1.13.0');
    const bad = await post(base, request('x', 'jev-9.9.9'), auth);
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ detail: { error_type: 'api_usage_error', message: 'Unknown model: jev-9.9.9' } });
    expect(bad.headers.get('x-typesafe-request-id')).toMatch(/^req_/);
  });

  it('validates requests like Jev (422 detail array, 400 string for an empty choice)', async () => {
    const r = await post(
      base,
      request('x', 'jev-1.13.0', {
        impact: { type: 'score', instructions: 'How severe?', criteria: { 0: 'Minor', 1: 'Major' } },
        team: { type: 'choice', instructions: 'Which team?' },
      }),
      auth,
    );
    expect(r.status).toBe(422);
    expect(r.json.detail.map((d: any) => [d.type, d.loc.join('.'), d.msg])).toEqual([
      ['list_type', 'body.questions.impact.score.criteria', 'Input should be a valid list'],
      ['missing', 'body.questions.team.choice.criteria', 'Field required'],
    ]);

    const cases: Array<[unknown, string]> = [
      [{ model: 'jev-latest', state: 'x', questions: {}, extra: 1 }, 'extra_forbidden'],
      [{ model: 'jev-latest', state: 'x', questions: {} }, 'too_short'],
      [{ model: 'jev-latest', questions: QUESTIONS }, 'missing'],
      [{ model: 1, state: 'x', questions: QUESTIONS }, 'string_type'],
      [{ model: 'jev-latest', state: 42, questions: QUESTIONS }, 'string_type'],
      [request('x', 'jev-latest', { q: { type: 'flag', instructions: 'x' } }), 'union_tag_invalid'],
      [request('x', 'jev-latest', { q: { instructions: 'x' } }), 'union_tag_not_found'],
      [request('x', 'jev-latest', { q: { type: 'noul' } }), 'missing'],
      [request('x', 'jev-latest', { q: { type: 'choice', instructions: 'x', criteria: { a: null } } }), 'too_short'],
      [request('x', 'jev-latest', { q: { type: 'choice', instructions: 'x', criteria: ['a', 'b'] } }), 'dict_type'],
      [request('x', 'jev-latest', { q: { type: 'score', instructions: 'x', criteria: ['a'] } }), 'too_short'],
      [
        request('x', 'jev-latest', { q: { type: 'score', instructions: 'x', criteria: Array(11).fill('l') } }),
        'too_long',
      ],
      ['{"model": "jev-latest", "state": ', 'json_invalid'],
    ];
    for (const [body, type] of cases) {
      const res = await post(base, body, auth);
      expect([res.status, res.json.detail[0].type]).toEqual([422, type]);
    }

    const empty = await post(
      base,
      request('x', 'jev-latest', { department: { type: 'choice', instructions: 'x', criteria: {} } }),
      auth,
    );
    expect(empty.status).toBe(400);
    expect(empty.json).toEqual({ detail: 'Choice question must have at least one choice: department' });
  });

  it('enforces the bearer: missing → 403, wrong → 401, also on /v1/models; /health is open', async () => {
    const missing = await post(base, request('x'));
    expect(missing.status).toBe(403);
    expect(missing.json.detail).toEqual({
      error_type: 'authentication_error',
      message: 'Must supply an API key! Check your request and try again.',
    });
    expect(missing.headers.get('x-typesafe-request-id')).toMatch(/^req_/);
    const wrong = await post(base, request('x'), { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.detail.error_type).toBe('authentication_error');
    expect((await call(`${base}/v1/models`)).status).toBe(403);
    expect((await call(`${base}/v1/models`, { headers: { authorization: 'Bearer bad' } })).status).toBe(401);
    const models = await call(`${base}/v1/models`, { headers: auth });
    expect(models.status).toBe(200);
    expect(models.json.models[0]).toEqual({
      name: 'jev-1.13.0',
      description: expect.any(String),
      release_date: '2026-09-17T00:00:00Z',
    });
    expect((await call(`${base}/health`)).status).toBe(200);
    expect((await call(`${base}/nope`)).status).toBe(404);
    expect((await call(`${base}/v1/systemone`, { headers: auth })).status).toBe(405);
  });

  it('injects 429/529 with retry headers, in order, then recovers', async () => {
    sim.fail({ status: 429 }).fail({ status: 429, retryAfterMs: 1500, retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT' });
    sim.fail({ status: 529, retryAfterMs: null, retryAfter: 3 });
    const a = await post(base, request('x'), auth);
    expect(a.status).toBe(429);
    expect(a.json).toEqual({ detail: { error_type: 'rate_limit_error', message: 'Rate limit exceeded.' } });
    expect([a.headers.get('retry-after-ms'), a.headers.get('retry-after')]).toEqual(['1000', '1']);
    expect(a.headers.get('x-typesafe-request-id')).toMatch(/^req_/);
    const b = await post(base, request('x'), auth);
    expect([b.headers.get('retry-after-ms'), b.headers.get('retry-after')]).toEqual([
      '1500',
      'Wed, 21 Oct 2026 07:28:00 GMT',
    ]);
    const c = await post(base, request('x'), auth);
    expect(c.status).toBe(529);
    expect(c.json.detail.error_type).toBe('overloaded_error');
    expect([c.headers.get('retry-after-ms'), c.headers.get('retry-after')]).toEqual([null, '3']);
    expect(sim.pendingFaults).toHaveLength(0);
    expect((await post(base, request('x'), auth)).status).toBe(200);
  });

  it('injects other statuses with default bodies in the Jev error shapes, or a custom body', async () => {
    sim.fail({ status: 500 }).fail({ status: 502 }).fail({ status: 422 }).fail({ status: 401 });
    sim.fail({ status: 503, body: 'upstream unavailable' }, 2);
    expect((await post(base, request('x'), auth)).json).toEqual({ detail: 'Internal Server Error' });
    const proxy = await post(base, request('x'), auth);
    expect([proxy.status, proxy.headers.get('content-type')]).toEqual([502, 'text/html']);
    expect(proxy.text).toContain('502 Bad Gateway');
    const invalid = await post(base, request('x'), auth);
    expect([invalid.status, Array.isArray(invalid.json.detail)]).toEqual([422, true]);
    expect((await post(base, request('x'), auth)).json.detail.error_type).toBe('authentication_error');
    for (let i = 0; i < 2; i++) {
      const r = await post(base, request('x'), auth);
      expect([r.status, r.text, r.headers.get('content-type')]).toEqual([503, 'upstream unavailable', 'text/plain']);
    }
    expect((await post(base, request('x'), auth)).status).toBe(200);
  });

  it('hangs until the client gives up, then serves the next request', async () => {
    sim.fail({ kind: 'hang' });
    await expect(post(base, request('x'), auth, 200)).rejects.toMatchObject(TIMED_OUT);
    expect((await post(base, request('x'), auth)).status).toBe(200);
    expect(sim.requests[0].status).toBe(0);
    expect(sim.requests[0].fault).toEqual({ kind: 'hang' });
  });

  it('drops the connection on a disconnect fault', async () => {
    sim.fail({ kind: 'disconnect' });
    await expect(post(base, request('x'), auth)).rejects.toThrow();
    expect((await post(base, request('x'), auth)).status).toBe(200);
  });

  it('sends malformed 200 bodies', async () => {
    sim.fail({ kind: 'malformed', body: '<html>oops' }).fail({ kind: 'malformed', body: { answers: {} } });
    const raw = await post(base, request('x'), auth);
    expect([raw.status, raw.text, raw.json]).toEqual([200, '<html>oops', undefined]);
    expect((await post(base, request('x'), auth)).json).toEqual({ answers: {} });

    const variant = async (fault: Parameters<JevSimulator['fail']>[0]) => {
      sim.fail(fault);
      return post(base, request('steady text'), auth);
    };
    const good = (await post(base, request('steady text'), auth)).json;
    const truncated = await variant({ kind: 'malformed' });
    expect([truncated.status, truncated.json, truncated.headers.get('content-type')]).toEqual([
      200,
      undefined,
      'application/json',
    ]);
    expect((await variant({ kind: 'malformed', variant: 'no-model' })).json.model).toBeUndefined();
    expect((await variant({ kind: 'malformed', variant: 'no-answers' })).json.answers).toBeUndefined();
    expect((await variant({ kind: 'malformed', variant: 'wrong-type' })).json.answers.refund.type).toBe('choice');
    const missing = (await variant({ kind: 'malformed', variant: 'missing-label' })).json.answers.department;
    expect(Object.keys(missing.probabilities)).toEqual(['billing', 'technical', 'sales']);
    const noNoul = (await variant({ kind: 'malformed', variant: 'missing-label', key: 'refund' })).json.answers;
    expect(noNoul.refund).toEqual({ type: 'noul' });
    const unasked = (await variant({ kind: 'malformed', variant: 'unasked-key' })).json.answers;
    expect(Object.keys(unasked)).toEqual(['refund', 'department', 'severity', '__unasked__']);
    const range = (await variant({ kind: 'malformed', variant: 'out-of-range', key: 'severity' })).json.answers;
    expect(range.severity.probabilities['0']).toBe(1.5);
    const dropped = await variant({ kind: 'drop-answer', key: 'department' });
    expect(dropped.json.answers).toEqual({ refund: good.answers.refund, severity: good.answers.severity });
    expect(Object.keys((await variant({ kind: 'drop-answer' })).json.answers)).toEqual(['department', 'severity']);
  });

  it('is steerable with [[...]] markers in the state', async () => {
    const steer = async (state: unknown) => (await post(base, request(state), auth)).json.answers;
    const all = await steer('Customer wrote: hello [[p=0.83]]');
    expect(all.refund.noul).toBe(0.83);
    expect(all.department.choice).toBe('billing');
    expect(all.department.probabilities.billing).toBe(0.83);
    expect(sum(all.department.probabilities)).toBeCloseTo(1, 9);
    expect(all.severity.probabilities['3']).toBe(0.83);

    const one = await steer({ body: 'hi', note: '[[refund=0.12]] [[department=sales:0.7]] [[severity=1:0.9]]' });
    expect(one.refund.noul).toBe(0.12);
    expect(one.department).toEqual({
      type: 'choice',
      choice: 'sales',
      confidence: 0.6,
      probabilities: { billing: 0.1, technical: 0.1, sales: 0.7, other: 0.1 },
    });
    expect(one.severity.probabilities).toEqual({ 0: 0.04, 1: 0.9, 2: 0.03, 3: 0.03 });
    expect(one.severity.score).toBe(1.05);

    const mixed = await steer('[[p=0.5]] [[noul:refund=0.91]] [[choice:refund=0.1]] [[department=nope:0.9]]');
    expect(mixed.refund.noul).toBe(0.91);
    expect(mixed.department.probabilities.billing).toBe(0.5); // unknown label → falls back to [[p=...]]
    expect((await steer('[[refund=false:0.9]]')).refund.noul).toBe(0.1);
    const typed = await steer('[[score:p=0:1]] [[noul:p=1]]');
    expect([typed.refund.noul, typed.severity.score, typed.severity.confidence]).toEqual([1, 0, 1]);
    const invalid = request('[[refund=2]] [[refund=abc]]');
    expect((await post(base, invalid, auth)).json.answers).toEqual(unsteered(invalid));
  });

  it('applies latency to answers', async () => {
    sim.setLatency(5000);
    expect(sim.latencyMs).toBe(5000);
    await expect(post(base, request('x'), auth, 1000)).rejects.toMatchObject(TIMED_OUT);
    sim.setLatency(0);
    expect((await post(base, request('x'), auth, 1000)).status).toBe(200);
  });

  it('logs every request with its status and fault, counts them, and clears the log', async () => {
    const before = sim.requestCount;
    await post(base, request('log me'), auth);
    sim.fail({ status: 429 });
    await post(base, 'not json', auth);
    expect(sim.requestCount).toBe(before + 2);
    const [first, second] = sim.requests;
    expect(first).toMatchObject({ method: 'POST', path: '/v1/systemone', status: 200, body: request('log me') });
    expect(first.headers.authorization).toBe('Bearer apikey_test');
    expect(first.requestId).toMatch(/^req_[0-9a-f]{16}$/);
    expect(typeof first.at).toBe('number');
    expect(second).toMatchObject({ status: 429, body: 'not json', fault: { status: 429 } });
    sim.clearLog();
    expect(sim.requests).toHaveLength(0);
  });
});

describe('JevSimulator lifecycle', () => {
  it('stops promptly while a request hangs, and can run without a log', async () => {
    const sim = new JevSimulator({ logRequests: false });
    const base = await sim.start(0);
    expect(sim.url).toBe(base);
    sim.fail({ kind: 'hang' });
    // The client would wait longer than the test may run: only stop() closing the connection ends the request.
    const pending = post(base, request('x'), {}, 60_000);
    pending.catch(() => undefined);
    await arrived(sim, 1);
    await sim.stop();
    await expect(pending).rejects.toMatchObject(CLOSED);
    expect(sim.requests).toHaveLength(0);
    expect(sim.requestCount).toBe(1);
    expect(sim.url).toBeUndefined();
    await sim.stop(); // idempotent
  });

  it('clears pending latency timers on stop', async () => {
    const sim = new JevSimulator({ latencyMs: 60_000 });
    const base = await sim.start();
    const pending = post(base, request('x'), {}, 60_000);
    pending.catch(() => undefined);
    await arrived(sim, 1);
    expect(sim.pendingTimers).toBe(1);
    await sim.stop();
    expect(sim.pendingTimers).toBe(0);
    await expect(pending).rejects.toMatchObject(CLOSED);
  });
});

describe('JevSimulator (laya mode)', () => {
  const options: JevSimulatorOptions = { mode: 'laya', maxConcurrent: 2, maxLabels: 5 };
  const sim = new JevSimulator(options);
  let base: string;

  beforeAll(async () => {
    base = await sim.start();
  });
  afterAll(() => sim.stop());
  afterEach(() => {
    sim.clearFaults().clearLog().setLatency(0);
  });

  it('answers with the laya-serve shape, 4-dp numbers and no request id', async () => {
    const r = await post(
      base,
      request('I was charged twice this month', 'jev-latest', {
        queue: { type: 'choice', instructions: 'Which team?', criteria: ['billing', 'tech', 'other'] },
        refund: { type: 'noul', instructions: 'Refund asked?', labels: { true: 'yes', false: 'no' } },
        severity: { type: 'score', instructions: 'How bad?', criteria: ['low', 'high'] },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('x-typesafe-request-id')).toBeNull();
    expect(r.headers.get('server-timing')).toMatch(/^inference;dur=\d+\.\d\d$/);
    expect(r.headers.get('x-inference-time-ms')).toMatch(/^\d+\.\d\d$/);
    expect(r.json.model).toBe('laya-rl-agent');
    expect(r.json.routing).toMatchObject({
      model: 'english',
      repo: 'convaiinnovations/laya',
      reason: expect.any(String),
    });
    expect(r.json.usage).toMatchObject({ output_tokens: 0, truncated: false, truncated_questions: [] });

    const { queue, refund, severity } = r.json.answers;
    expect(Object.keys(queue.probabilities)).toEqual(['billing', 'tech', 'other']);
    const qp = Object.values(queue.probabilities) as number[];
    expect(qp.every(is4dp)).toBe(true);
    expect(sum(queue.probabilities)).toBeCloseTo(1, 9);
    expect(queue.confidence).toBe(Math.round(entropyConfidence(qp) * 10000) / 10000);
    expect(queue.answer_confidence).toBe(Math.max(...qp));
    expect(queue.x_jev_confidence).toBe(Math.round(choiceConfidence(qp) * 10000) / 10000);
    expect(queue.action).toEqual({ act_probability: 1 });
    expect(is4dp(refund.noul)).toBe(true);
    expect(refund.confidence).toBe(Math.round(Math.max(refund.noul, 1 - refund.noul) * 10000) / 10000);
    expect(severity.legend).toEqual({ 0: 'low', 1: 'high' });
    expect(severity.score).toBeCloseTo(severity.probabilities['1'], 9);

    const steered = await post(
      base,
      request('[[queue=tech:0.8765]] [[refund=0.1234]]', 'auto', {
        queue: { type: 'choice', instructions: 'q', criteria: ['billing', 'tech'] },
        refund: { type: 'noul', instructions: 'r' },
      }),
    );
    expect(steered.json.answers.queue.probabilities).toEqual({ billing: 0.1235, tech: 0.8765 });
    expect(steered.json.answers.refund.noul).toBe(0.1234);
  });

  it('routes to a checkpoint from the requested model', async () => {
    const route = async (model: string) => (await post(base, request('hola', model))).json.routing.model;
    expect(await route('multilingual')).toBe('multilingual');
    expect(await route('ml')).toBe('multilingual');
    expect(await route('Multi')).toBe('multilingual');
    expect(await route('typed-decisions')).toBe('typed-decisions');
    expect(await route('english')).toBe('english');
    expect(await route('auto')).toBe('english');
    expect(await route('jev-1.13.0')).toBe('english');
  });

  it('answers empty questions with 200 and returns string-detail errors', async () => {
    const empty = await post(base, { state: 'x', questions: {} });
    expect([empty.status, empty.json.answers, empty.json.usage.input_tokens]).toEqual([200, {}, 0]);
    const expectDetail = async (body: unknown, status: number, detail: string) => {
      const r = await post(base, body);
      expect([r.status, r.json]).toEqual([status, { detail }]);
    };
    await expectDetail('{', 400, 'request body must be valid JSON');
    await expectDetail({ state: 'x' }, 400, "request body must be an object with a 'questions' field");
    await expectDetail({ questions: {} }, 400, "'state' is required");
    await expectDetail({ state: 'x', questions: [] }, 400, "'questions' must be an object");
    await expectDetail(
      request('x', 'auto', { q: { type: 'flag', instructions: 'x' } }),
      422,
      "question 'q': unknown type 'flag'; use one of ['choice', 'noul', 'score']",
    );
    const six = ['a', 'b', 'c', 'd', 'e', 'f'];
    await expectDetail(
      request('x', 'auto', { queue: { type: 'choice', instructions: 'x', criteria: six } }),
      422,
      "question 'queue' options exceed head_max_len=192",
    );
    await expectDetail(
      request('x', 'multilingual', { queue: { type: 'choice', instructions: 'x', criteria: six } }),
      422,
      "question 'queue' options exceed head_max_len=256",
    );
    const many = Object.fromEntries(
      Array.from({ length: 65 }, (_, i) => [`q${i}`, { type: 'noul', instructions: 'x' }]),
    );
    await expectDetail(request('x', 'auto', many), 413, 'too many questions (65 > 64)');
  });

  it('answers 503 busy with Retry-After above maxConcurrent, and as a fault', async () => {
    // Two requests in flight (their answers wait a minute) fill maxConcurrent = 2: the third is refused at once.
    const full = new JevSimulator({ ...options, latencyMs: 60_000 });
    const url = await full.start();
    try {
      const running = [1, 2].map(() => post(url, request('busy?'), {}, 60_000));
      for (const reply of running) reply.catch(() => undefined);
      await arrived(full, 2);
      const busy = await post(url, request('busy?'));
      expect([busy.status, busy.json, busy.headers.get('retry-after')]).toEqual([
        503,
        { detail: 'server busy, try again later' },
        '1',
      ]);
    } finally {
      await full.stop();
    }

    sim.fail({ status: 503 }).fail({ status: 500 });
    const fault = await post(base, request('x'));
    expect([fault.status, fault.json, fault.headers.get('retry-after')]).toEqual([
      503,
      { detail: 'server busy, try again later' },
      '1',
    ]);
    expect((await post(base, request('x'))).json).toEqual({ detail: 'inference failed' });
  });

  it('requires the bearer when a key is set (401 either way)', async () => {
    const keyed = new JevSimulator({ mode: 'laya', apiKey: 'k' });
    const url = await keyed.start();
    try {
      for (const headers of [{}, { authorization: 'Bearer x' }] as Array<Record<string, string>>) {
        const r = await post(url, request('x'), headers);
        expect([r.status, r.json]).toEqual([401, { detail: 'invalid or missing bearer token' }]);
      }
      expect((await post(url, request('x'), { authorization: 'Bearer k' })).status).toBe(200);
      expect((await call(`${url}/health`)).status).toBe(200);
    } finally {
      await keyed.stop();
    }
  });
});

describe('engine', () => {
  it('rounds with largest remainders so units always sum to the scale', () => {
    expect(toUnits([1 / 3, 1 / 3, 1 / 3], 100)).toEqual([34, 33, 33]);
    const flat = toUnits(Array(255).fill(1), 100);
    expect(flat.reduce((a, b) => a + b, 0)).toBe(100);
    expect(Math.min(...flat)).toBeGreaterThanOrEqual(0);
  });

  it('implements the documented confidence formulas', () => {
    expect(Math.round(choiceConfidence([0.86, 0.09, 0.03, 0.02]) * 100) / 100).toBe(0.81);
    expect(choiceConfidence([0.16, 0.28, 0.33, 0.23])).toBeCloseTo(0.1067, 3);
    expect(choiceConfidence([1])).toBe(1);
    expect(Math.round(scoreConfidence([0.02, 0.11, 0.64, 0.23]) * 100) / 100).toBe(0.62);
    expect(Math.round(scoreConfidence([0.01, 0.78, 0.21]) * 100) / 100).toBe(0.67);
    expect(scoreConfidence([0.25, 0.25, 0.25, 0.25])).toBe(0);
    expect(entropyConfidence([0.5, 0.5])).toBeCloseTo(0, 9);
    expect(entropyConfidence([1, 0])).toBe(1);
  });

  it('parses steering markers', () => {
    const s = parseSteering(
      'a [[p=0.5]] [[ q1 = 0.2 ]] [[choice:dept=a:b:0.7]] [[score:p=1]] [[bad=1.5]] [[x=]] [[y=a:]]',
    );
    expect([...s.entries()]).toEqual([
      ['p', { p: 0.5 }],
      ['q1', { p: 0.2 }],
      ['choice:dept', { p: 0.7, target: 'a:b' }],
      ['score:p', { p: 1 }],
    ]);
  });
});
