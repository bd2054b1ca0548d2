// The openai driver inside a Nest app: every Question kind answered from logprobs over real HTTP by the simulator's
// OpenAI mode, one Provenance per round in the PostgreSQL record, the failure modes and the budget.
import { Classification, Evidence, Judgment, type JudgmentModuleOptions } from 'nestjs-judgment';
import { startOpenAiSimulator, type OpenAiFault, type RunningOpenAiSimulator } from 'nestjs-judgment/simulator';
import {
  CREDIBILITY,
  DEPARTMENTS,
  type Harness,
  NoteCheck,
  RefundAbuse,
  SuiteDatabase,
  aRefund,
  rejectionOf,
  render,
  startApp,
} from './support';

const KEY = 'sk-proj-openai-e2e-SECRET';
const MODEL = 'sim-4o-2026-09-17';
let db: SuiteDatabase;
let sim: RunningOpenAiSimulator;

beforeAll(async () => {
  db = await SuiteDatabase.create('judgment_openai_branch_openai');
  sim = await startOpenAiSimulator({ apiKey: KEY });
});

afterAll(async () => {
  await db?.close();
  await sim?.stop();
});

/** A Classification over `count` queues and the escape option. */
@Judgment({ name: 'wide-routing' })
class WideRouting implements Judgment {
  constructor(
    readonly text: string,
    readonly count = 3,
  ) {}

  evidence() {
    return { text: Evidence.untrusted(this.text) };
  }

  questions() {
    const queues = Array.from({ length: this.count }, (_, index) => `queue-${index}`);
    return { queue: Classification.of('Which queue?', queues).orNone() };
  }
}

/** 20 queues and the escape option: one more than top_logprobs returns. */
@Judgment({ name: 'too-wide-routing' })
class TooWideRouting extends WideRouting {
  constructor(text = '') {
    super(text, 20);
  }
}

function options(overrides: Record<string, unknown> = {}, module: JudgmentModuleOptions = {}): JudgmentModuleOptions {
  return {
    engine: 'openai',
    ...module,
    engines: {
      openai: { driver: 'openai', url: sim.url, key: KEY, model: MODEL, timeout: 2, retries: 1, ...overrides },
    },
  };
}

describe('the openai driver in an app, records on PostgreSQL', () => {
  let harness: Harness;

  beforeEach(async () => {
    await db.reset();
    sim.clearLog().clearFaults();
  });

  afterEach(async () => {
    await harness?.close();
  });

  const start = (overrides: Record<string, unknown> = {}, module: JudgmentModuleOptions = {}) =>
    startApp({
      typeOrm: db.typeOrm('postgres'),
      options: options(overrides, module),
      judgments: [RefundAbuse, NoteCheck, WideRouting],
    });

  it('answers every Question kind from logprobs, one request per Question, with one Provenance', async () => {
    harness = await start();
    const refund = aRefund({
      explanation:
        'They arrived broken. [[abusive=0.2]] [[credibility=3:0.7]] [[department=shipping:0.6]] ' +
        '[[harms.spam=0.9]] [[harms.threat=false:0.95]]',
    });

    const assessment = await harness.judge.assess(new RefundAbuse(refund));

    // Likelihood, Rating, Classification and a Likelihood Set's labels, each read exactly as steered.
    expect(assessment.likelihood('abusive').probability).toBeCloseTo(0.2, 9);
    const credibility = assessment.rating('credibility');
    expect(credibility.probabilities).toHaveLength(CREDIBILITY.length);
    expect(credibility.probabilities[3]).toBeCloseTo(0.7, 9);
    expect(credibility.expected).toBeCloseTo(0 * 0.1 + 1 * 0.1 + 2 * 0.1 + 3 * 0.7, 9);
    const department = assessment.classification('department');
    expect(department.label).toBe('shipping');
    expect(department.probabilityOf('shipping')).toBeCloseTo(0.6, 9);
    expect(Object.keys(department.probabilities)).toEqual(DEPARTMENTS);
    expect(assessment.likelihoodSet('harms').of('spam').probability).toBeCloseTo(0.9, 9);
    expect(assessment.likelihoodSet('harms').of('threat').probability).toBeCloseTo(0.05, 9);

    const requests = sim.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(requests).toHaveLength(5);
    const prompts = requests.map((request) => JSON.stringify(request.body));
    expect(prompts.every((prompt) => prompt.includes('<untrusted_user_text>'))).toBe(true);

    const { provenance } = assessment;
    expect(provenance.engine).toBe('openai');
    expect(provenance.model).toBe(MODEL);
    expect(provenance.details.systemFingerprint).toBe(sim.systemFingerprint);
    const ids = requests.map((request) => request.requestId);
    expect(Object.values(provenance.details.requestIds as Record<string, string>).sort()).toEqual(ids.sort());
    const coverage = provenance.details.coverage as Record<string, number>;
    expect(Object.keys(coverage)).toEqual(['abusive', 'credibility', 'department', 'harms.threat', 'harms.spam']);
    for (const share of Object.values(coverage)) expect(share).toBeGreaterThanOrEqual(0.9);
    const usage = provenance.details.usage as { input_tokens: number; output_tokens: number; requests: number };
    expect(usage).toMatchObject({ output_tokens: 5, requests: 5 });
    expect(harness.judge.usage()).toBe(usage.input_tokens);

    const [record] = await harness.records();
    expect(record).toMatchObject({
      engine: 'openai',
      model: MODEL,
      requestId: provenance.requestId,
      provenanceDetails: JSON.parse(JSON.stringify(provenance.details)),
      failureType: null,
    });
    expect(render(record)).not.toContain(KEY);
  });

  it('reads the escape option: none wins and the label is null', async () => {
    harness = await start();
    const assessment = await harness.judge.assess(new WideRouting('[[queue=none:0.7]]', 3));
    expect(assessment.classification('queue').label).toBeNull();
    expect(assessment.classification('queue').probabilityOf('none')).toBeCloseTo(0.7, 9);
  });

  it('refuses more options than top_logprobs at startup, before any paid request', async () => {
    const error = await rejectionOf(
      startApp({
        typeOrm: db.typeOrm('postgres'),
        options: options({ topLogprobs: 20 }),
        judgments: [TooWideRouting],
      }),
    );
    expect(error.name).toBe('JudgmentCheckFailed');
    expect(error.message).toContain('"queue" offers 21');
    expect(sim.requests).toHaveLength(0);
  });

  const failures: Array<[string, OpenAiFault, string]> = [
    ['missing logprobs', { kind: 'omit-logprobs' }, 'MalformedEngineResponse'],
    ['mass outside the options', { kind: 'off-options' }, 'MalformedEngineResponse'],
    ['a truncated body', { kind: 'truncated' }, 'MalformedEngineResponse'],
    ['an extra choice', { kind: 'two-choices' }, 'MalformedEngineResponse'],
    ['a lasting rate limit', { status: 429, resetRequests: '10ms', resetTokens: '20ms' }, 'EngineRateLimited'],
    ['a server error', { status: 500 }, 'EngineFailed'],
    ['a dropped connection', { kind: 'disconnect' }, 'EngineFailed'],
  ];

  it.each(failures)('records %s as a failed attempt (%s), never an answer', async (_case, fault, failure) => {
    harness = await start();
    sim.fail(fault, 2);
    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Refund me twice.')));
    expect(error.name).toBe(failure);
    const [record] = await harness.records();
    expect(record).toMatchObject({ failureType: failure, answers: null });
    expect(record.isUnassessed()).toBe(true);
    expect(render(error)).not.toContain(KEY);
    expect(render(harness.captured)).not.toContain(KEY);
  });

  it('refuses wrong credentials as EngineUnauthorized, naming the key option, without the key', async () => {
    harness = await start({ key: 'sk-proj-wrong-key-0000' });
    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Hello')));
    expect(error.name).toBe('EngineUnauthorized');
    expect(error.message).toContain('engines.openai.key');
    expect(error.message).not.toContain('sk-proj-wrong-key-0000');
  });

  it('retries a 429 after the reset headers, then answers', async () => {
    harness = await start();
    sim.fail({ status: 429, resetRequests: '30ms', resetTokens: '10ms' });
    const assessment = await harness.judge.assess(new NoteCheck('[[flagged=0.3]]'));
    expect(assessment.likelihood('flagged').probability).toBeCloseTo(0.3, 9);
    expect(sim.requests.map((request) => request.status)).toEqual([429, 200]);
    expect(sim.requests[1].at - sim.requests[0].at).toBeGreaterThanOrEqual(25);
  });

  it('spends the budget in summed prompt tokens, then refuses without sending', async () => {
    harness = await start({ budget: 1 });
    await harness.judge.assess(new NoteCheck('First note.'));
    const sent = sim.requests.length;
    const error = await rejectionOf(harness.judge.assess(new NoteCheck('Second note.')));
    expect(error.name).toBe('EngineBudgetExhausted');
    expect(sim.requests).toHaveLength(sent);
    expect(harness.judge.usage()).toBeGreaterThan(1);
  });
});
