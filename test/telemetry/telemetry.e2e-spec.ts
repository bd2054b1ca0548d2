// OpenTelemetry end to end (issue 19): with the SDK registered (in-memory span exporter, a metric reader collected on
// demand), an assessment's span tree inline, and queued across two processes in one trace (this process dispatches,
// a spawned worker process assesses and decides); the metrics of the same runs. Real PostgreSQL (database
// judgment_trace_telemetry), real Redis (prefix trace-telemetry-*), the real Jev driver over HTTP to the simulator.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { DataSource } from 'typeorm';
import { AssessmentRecord, AssessmentRecords, Judge } from 'nestjs-judgment';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { clearPrefix } from '../support/redis';
import { API_KEY, Customer, RefundCheck, freshDatabase, openDatabase, waitFor } from '../queue/queue.fixtures';
import {
  type SpanView,
  type Telemetry,
  collectMetrics,
  points,
  registerTelemetry,
  spanView,
  startTelemetryApp,
  unregisterTelemetry,
} from './telemetry.fixtures';

const DATABASE = 'judgment_trace_telemetry';
const SECRET_TEXT = 'My lamp broke, please refund. SECRET-EVIDENCE';

let simulator: JevSimulator;
let telemetry: Telemetry;
let db: DataSource;
let app: INestApplicationContext | null = null;
const prefixes: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'judgment-trace-telemetry-'));

beforeAll(async () => {
  simulator = new JevSimulator({ apiKey: API_KEY });
  await simulator.start(0);
  await freshDatabase(DATABASE);
  db = await openDatabase(DATABASE);
  telemetry = registerTelemetry();
});

afterEach(async () => {
  await app?.close();
  app = null;
});

afterAll(async () => {
  await unregisterTelemetry(telemetry);
  await db.destroy();
  await simulator.stop();
  for (const prefix of prefixes) await clearPrefix(prefix);
  rmSync(dir, { recursive: true, force: true });
});

async function start(workers: boolean): Promise<{ judge: Judge; prefix: string }> {
  const prefix = `trace-telemetry-${process.pid}-${prefixes.length}`;
  prefixes.push(prefix);
  app = await startTelemetryApp({ database: DATABASE, prefix, simulatorUrl: simulator.url!, workers });
  return { judge: app.get(Judge), prefix };
}

async function customer(name: string): Promise<Customer> {
  return db.getRepository(Customer).save(db.getRepository(Customer).create({ name }));
}

/** Runs `work` in a root span, as an HTTP server's instrumentation would; returns its result and the span's ids. */
async function inRequest<T>(work: () => Promise<T>): Promise<{ result: T; traceId: string; spanId: string }> {
  return trace.getTracer('test').startActiveSpan('POST /refunds', { kind: SpanKind.SERVER }, async (span) => {
    try {
      const result = await work();
      return { result, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
    } finally {
      span.end();
    }
  });
}

const named = (spans: SpanView[], name: string) => {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`Expected one span ${name}, got ${spans.map((s) => s.name).join(', ')}`);
  return found[0];
};
const children = (spans: SpanView[], parent: SpanView) =>
  spans.filter((span) => span.parentSpanId === parent.spanId).map((span) => span.name);

/** Every attribute value of every span, to check no secret is in them. */
const attributeText = (spans: SpanView[]) => JSON.stringify(spans.map((span) => span.attributes));

const collect = () => collectMetrics(telemetry);

it('inline: assess → Engine call, recording; decide → recording, with GenAI and database attributes', async () => {
  telemetry.spans.reset();
  const { judge } = await start(false);
  const buyer = await customer('Ada');
  const { traceId, spanId } = await inRequest(async () => {
    const assessment = await judge.assess(new RefundCheck(buyer, `${SECRET_TEXT} [[abusive=0.8]]`));
    return assessment.outcome();
  });

  const spans = telemetry.spans.getFinishedSpans().map(spanView);
  expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
  const assess = named(spans, 'judgment.assess');
  expect(assess.parentSpanId).toBe(spanId);
  expect(assess.attributes).toMatchObject({ 'judgment.name': 'queue-refund', 'judgment.status': 'assessed' });
  expect(children(spans, assess).sort()).toEqual(['chat jev-1.13.0', 'judgment.decide', 'judgment.record']);

  const engine = named(spans, 'chat jev-1.13.0');
  expect(engine.kind).toBe(SpanKind.CLIENT);
  expect(engine.attributes).toMatchObject({
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'jev',
    'gen_ai.request.model': 'jev-1.13.0',
    'gen_ai.response.model': 'jev-1.13.0',
    'gen_ai.usage.input_tokens': expect.any(Number),
    'gen_ai.usage.output_tokens': expect.any(Number),
  });
  // The driver's HTTP request, under the Engine call, with the HTTP client conventions' attributes.
  expect(children(spans, engine)).toEqual(['POST']);
  expect(named(spans, 'POST')).toMatchObject({
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'url.full': `${simulator.url}/v1/systemone`,
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(simulator.url!).port),
    },
  });
  const decide = named(spans, 'judgment.decide');
  expect(decide.attributes).toMatchObject({
    'judgment.decision': 'queue-refund-decision',
    'judgment.outcome': 'escalate',
    'judgment.rule': 'abusive ≥ 0.5',
  });
  const writes = spans.filter((span) => span.name === 'judgment.record');
  expect(writes.map((span) => [span.parentSpanId, span.attributes['db.operation.name']])).toEqual([
    [assess.spanId, 'INSERT'],
    [decide.spanId, 'UPDATE'],
  ]);
  expect(writes[0].attributes).toMatchObject({
    'db.system.name': 'postgresql',
    'db.collection.name': 'judgment_assessments',
  });
  expect(attributeText(spans)).not.toContain('SECRET-EVIDENCE');
  expect(attributeText(spans)).not.toContain(API_KEY);
});

it('an Engine failure: the Engine span and the assess span fail with error.type, and the errors metric counts it', async () => {
  telemetry.spans.reset();
  const { judge } = await start(false);
  const before = await collect();
  const failuresBefore = points(before, 'judgment.engine.errors').reduce((sum, [, value]) => sum + value, 0);
  simulator.fail({ status: 500 });
  await expect(judge.assess(new RefundCheck(await customer('Bo'), 'It broke.'))).rejects.toThrow();

  const spans = telemetry.spans.getFinishedSpans().map(spanView);
  const engine = named(spans, 'chat jev-1.13.0');
  expect(engine.status).toBe(SpanStatusCode.ERROR);
  expect(engine.attributes['error.type']).toEqual(expect.stringMatching(/^Engine/));
  expect(named(spans, 'judgment.assess').status).toBe(SpanStatusCode.ERROR);
  expect(named(spans, 'POST')).toMatchObject({
    status: SpanStatusCode.ERROR,
    attributes: { 'http.response.status_code': 500, 'error.type': '500' },
  });

  const after = await collect();
  const failures = points(after, 'judgment.engine.errors');
  expect(failures.reduce((sum, [, value]) => sum + value, 0)).toBe(failuresBefore + 1);
  expect(points(after, 'judgment.assessments')).toContainEqual([
    { 'judgment.name': 'queue-refund', 'judgment.status': 'unassessed' },
    1,
  ]);
});

it('the metrics: assessments, decisions, Engine latency, tokens and the Review backlog', async () => {
  await db.getRepository(AssessmentRecord).save(
    db.getRepository(AssessmentRecord).create({
      judgment: 'queue-refund',
      evidenceFingerprint: 'a'.repeat(64),
      untrustedPaths: [],
      questionsFingerprint: 'b'.repeat(64),
      outcome: 'escalate',
      reviewRequestedAt: new Date(),
    }),
  );
  await start(false);
  const metrics = await collect();

  expect(points(metrics, 'judgment.assessments')).toContainEqual([
    { 'judgment.name': 'queue-refund', 'judgment.status': 'assessed' },
    1,
  ]);
  expect(points(metrics, 'judgment.decisions')).toContainEqual([
    { 'judgment.name': 'queue-refund', 'judgment.decision': 'queue-refund-decision', 'judgment.outcome': 'escalate' },
    1,
  ]);
  const latency = points(metrics, 'gen_ai.client.operation.duration');
  expect(latency.reduce((sum, [, count]) => sum + count, 0)).toBe(2);
  expect(points(metrics, 'gen_ai.client.token.usage').map(([attributes]) => attributes['gen_ai.token.type'])).toEqual(
    expect.arrayContaining(['input', 'output']),
  );
  expect(points(metrics, 'judgment.review.backlog')).toEqual([[{ 'judgment.name': 'queue-refund' }, 1]]);
});

it('review: claim and resolve are spans of their own, and the resolution is timed', async () => {
  const waiting = await db.getRepository(AssessmentRecord).save(
    db.getRepository(AssessmentRecord).create({
      judgment: 'queue-refund',
      evidenceFingerprint: 'c'.repeat(64),
      untrustedPaths: [],
      questionsFingerprint: 'd'.repeat(64),
      decision: 'queue-refund-decision',
      outcome: 'escalate',
      reviewRequestedAt: new Date(),
    }),
  );
  await start(false);
  telemetry.spans.reset();
  const records = app!.get(AssessmentRecords);
  const agent = { type: 'Agent', id: 'ada' };
  await records.claim(waiting.id, agent, { ttl: '5m' });
  await records.resolve((await records.find(waiting.id))!, 'approve', agent);

  const spans = telemetry.spans.getFinishedSpans().map(spanView);
  expect(named(spans, 'judgment.review.claim').attributes).toMatchObject({ 'judgment.record_id': waiting.id });
  expect(named(spans, 'judgment.review.resolve').attributes).toMatchObject({
    'judgment.record_id': waiting.id,
    'judgment.resolution': 'approve',
  });
  const metrics = await collect();
  expect(points(metrics, 'judgment.review.resolution.duration')).toContainEqual([
    { 'judgment.name': 'queue-refund', 'judgment.resolution': 'approve' },
    1,
  ]);
});

describe('queued across processes', () => {
  let worker: ChildProcess | null = null;

  afterEach(async () => {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGKILL');
      await once(worker, 'exit');
    }
  });

  it('one trace from the dispatching request through the worker process: send → process assess → process decide', async () => {
    telemetry.spans.reset();
    const { judge, prefix } = await start(false);
    const spansFile = join(dir, 'worker-spans.json');
    worker = spawn(process.execPath, ['-r', './scripts/register.js', 'test/telemetry/worker.fixture.ts'], {
      cwd: join(__dirname, '..', '..'),
      env: {
        ...process.env,
        TW_DATABASE: DATABASE,
        TW_PREFIX: prefix,
        TW_SIMULATOR_URL: simulator.url!,
        TW_SPANS: spansFile,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const running = worker;
    await new Promise<void>((resolve, reject) => {
      running.once('exit', (code) => reject(new Error(`The worker process exited (${code}) before it was ready.`)));
      running.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    });

    const buyer = await customer('Cy');
    const { traceId } = await inRequest(() => judge.dispatch(new RefundCheck(buyer, 'It broke. [[abusive=0.2]]')));
    await waitFor('the worker to decide the record', async () => {
      const record = await db.getRepository(AssessmentRecord).findOneBy({ subjectId: String(buyer.id) });
      return record?.outcome ?? undefined;
    });
    running.kill('SIGTERM');
    await once(running, 'exit');

    const api = telemetry.spans.getFinishedSpans().map(spanView);
    const send = named(api, 'send judgment-assess');
    expect(send).toMatchObject({ kind: SpanKind.PRODUCER, traceId });
    expect(send.attributes).toMatchObject({
      'messaging.destination.name': 'judgment-assess',
      'judgment.name': 'queue-refund',
    });

    const spans = JSON.parse(readFileSync(spansFile, 'utf8')) as SpanView[];
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([traceId]));
    const processAssess = named(spans, 'process judgment-assess');
    expect(processAssess).toMatchObject({ kind: SpanKind.CONSUMER, parentSpanId: send.spanId });
    const assess = named(spans, 'judgment.assess');
    expect(assess.parentSpanId).toBe(processAssess.spanId);
    expect(children(spans, assess).sort()).toEqual(['chat jev-1.13.0', 'judgment.record']);
    const processDecide = named(spans, 'process judgment-decide');
    expect(processDecide.parentSpanId).toBe(processAssess.spanId);
    const decide = named(spans, 'judgment.decide');
    expect(decide.parentSpanId).toBe(processDecide.spanId);
    expect(decide.attributes).toMatchObject({
      'judgment.outcome': 'approve',
      'judgment.rule': 'otherwise (no tested condition held)',
    });
    expect(attributeText([...api, ...spans])).not.toContain(API_KEY);
  });
});
