// What observability costs (issue 19), each figure measured against its baseline side by side in one run:
//   1. Decision trace: µs per decision, applyDecision (no trace, as before) vs applyTracedDecision (what recording runs).
//   2. No SDK: the package's OpenTelemetry calls of one assessment (5 spans, the metric instruments) through the
//      no-op API vs the same async work without them, in µs per assessment.
//   3. Assess + decide in-process (mock Engine, SQLite in memory): throughput with no SDK, with only the SDK's async
//      context manager, and with the SDK (batch span processor, in-memory exporter, a metric reader), alternating.
//   4. With --queue: the queue flow (real PostgreSQL and Redis, the Jev simulator, as bench/queue.bench.ts): throughput
//      with no SDK vs the SDK, alternating rounds. Run it under the e2e lock on a shared machine.
//   node -r ./scripts/register.js bench/telemetry.bench.ts [--queue]
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import {
  Assessment,
  Decision,
  Evidence,
  Judge,
  Judgment,
  JudgmentModule,
  Likelihood,
  Rating,
  judgmentEntities,
} from 'nestjs-judgment';
import { Provenance } from 'nestjs-judgment/drivers';
import { COMPUTE_ONLY, applyDecision, applyTracedDecision } from '../libs/judgment/src/decision/apply-decision';
import { judgmentInstruments } from '../libs/judgment/src/telemetry/judgment.metrics';
import { SpanKind, inSpan } from '../libs/judgment/src/telemetry/judgment.tracing';

enum Verdict {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}

@Judgment({ name: 'bench-refund', decision: () => BenchDecision })
class BenchRefund implements Judgment {
  constructor(readonly text: string) {}
  evidence() {
    return { request: Evidence.untrusted(this.text) };
  }
  questions() {
    return {
      abusive: Likelihood.that('Is this refund request an attempt to abuse the refund policy?'),
      credibility: Rating.of('How credible is the explanation?', ['Not credible', 'Plausible', 'Fully credible']),
    };
  }
}

@Decision({ outcomes: Verdict })
class BenchDecision implements Decision<BenchRefund, Verdict> {
  readonly thresholds = { reject: 0.65, escalate: 0.3 };
  decide(assessment: Assessment<BenchRefund>): Verdict {
    const abusive = assessment.likelihood('abusive');
    if (abusive.above(this.thresholds.reject) && assessment.rating('credibility').below(1.5)) return Verdict.Reject;
    if (abusive.above(this.thresholds.escalate)) return Verdict.Escalate;
    return Verdict.Approve;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/** Alternates the variants for `rounds` rounds, rotating which goes first; the median of each's timings. */
async function sideBySide<K extends string>(rounds: number, variants: Record<K, () => Promise<number>>) {
  const names = Object.keys(variants) as K[];
  const timings = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length];
      timings[name].push(await variants[name]());
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(timings[name])])) as Record<K, number>;
}

async function timed(iterations: number, work: () => unknown): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await work();
  return ((performance.now() - started) * 1000) / iterations; // µs per iteration
}

function timedSync(iterations: number, work: () => unknown): number {
  const started = performance.now();
  for (let i = 0; i < iterations; i++) work();
  return ((performance.now() - started) * 1000) / iterations;
}

/** 1. The decision trace's cost per decision. */
async function decisionTrace() {
  const judgment = new BenchRefund('It broke.');
  const assessments = [0.1, 0.45, 0.9].map((abusive) =>
    Assessment.fromAnswers(
      judgment,
      judgment.questions(),
      { abusive, credibility: [0.6, 0.3, 0.1] },
      new Provenance('mock', 'mock-1.0.0'),
      COMPUTE_ONLY,
    ),
  );
  const decision = new BenchDecision();
  let n = 0;
  const iterations = 20_000;
  const { a, b } = await sideBySide(15, {
    a: async () => timedSync(iterations, () => applyDecision(assessments[n++ % 3], decision, false)),
    b: async () => timedSync(iterations, () => applyTracedDecision(assessments[n++ % 3], decision, false)),
  });
  return { untracedUsPerDecision: round(a, 3), tracedUsPerDecision: round(b, 3), extraUs: round(b - a, 3) };
}

/** 2. The package's telemetry calls of one assessment through the no-op API (no SDK), vs the same awaits without. */
async function noSdkOverhead() {
  const attributes = { 'judgment.name': 'bench-refund' };
  const plain = async () => {
    await (async () => {
      await (async () => undefined)();
      await (async () => undefined)();
    })();
    await (async () => {
      await (async () => undefined)();
    })();
  };
  const instrumented = async () => {
    await inSpan('judgment.assess', { attributes }, async (span) => {
      await inSpan('chat mock-1.0.0', { kind: SpanKind.CLIENT, attributes }, async () => {
        judgmentInstruments().tokens.record(100, attributes);
        judgmentInstruments().engineDuration.record(0.01, attributes);
      });
      await inSpan('judgment.record', { kind: SpanKind.CLIENT, attributes }, async () => undefined);
      judgmentInstruments().assessments.add(1, attributes);
      span.setAttribute('judgment.status', 'assessed');
    });
    await inSpan('judgment.decide', { attributes }, async (span) => {
      span.setAttributes(attributes);
      await inSpan('judgment.record', { kind: SpanKind.CLIENT, attributes }, async () => undefined);
      judgmentInstruments().decisions.add(1, attributes);
    });
  };
  const iterations = 20_000;
  const { a, b } = await sideBySide(15, {
    a: () => timed(iterations, plain),
    b: () => timed(iterations, instrumented),
  });
  return { withoutUsPerAssessment: round(a, 3), noSdkUsPerAssessment: round(b, 3), extraUs: round(b - a, 3) };
}

class BenchReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/**
 * Registers the SDK (in-memory spans, a metric reader), or with `contextOnly` only its async context manager and
 * propagator (the cost any OpenTelemetry setup pays, whatever a library does); returns its unregistration.
 */
function registerSdk(contextOnly = false): () => Promise<void> {
  const spans = new InMemorySpanExporter();
  // The batch processor, as apps run it in production; the in-memory exporter keeps what it is handed.
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
  const meterProvider = new MeterProvider({ readers: [new BenchReader()] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (!contextOnly) {
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
  }
  return async () => {
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
  };
}

/**
 * Runs `round` with no SDK, with only the SDK's context manager, and with the SDK registered, alternating; judgments
 * per second of each (medians) and the ratios to no SDK.
 */
async function noneVsSdk(rounds: number, round: () => Promise<number>) {
  const registered = (contextOnly: boolean) => async () => {
    const unregister = registerSdk(contextOnly);
    try {
      return await round();
    } finally {
      await unregister();
    }
  };
  const { none, contextOnly, sdk } = await sideBySide(rounds, {
    none: round,
    contextOnly: registered(true),
    sdk: registered(false),
  });
  return {
    noSdkPerSecond: Math.round(none),
    contextManagerOnlyPerSecond: Math.round(contextOnly),
    sdkPerSecond: Math.round(sdk),
    contextManagerOnlyRatio: round3(contextOnly / none),
    sdkRatio: round3(sdk / none),
  };
}
const round3 = (value: number) => Number(value.toFixed(3));

/** 3. assess + decide in-process: mock Engine, records in SQLite in memory. */
async function inProcess() {
  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: ':memory:',
        entities: judgmentEntities,
        synchronize: true,
      }),
      JudgmentModule.forRoot({ engine: 'mock', engines: { mock: { driver: 'mock' } }, log: false }),
      JudgmentModule.forFeature([BenchRefund]),
    ],
  })
  class BenchModule {}
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: false });
  const judge = app.get(Judge);
  const batch = 300;
  let n = 0;
  const roundOf = async () => {
    const started = performance.now();
    for (let i = 0; i < batch; i++) await (await judge.assess(new BenchRefund(`Case ${n++}.`))).outcome();
    return batch / ((performance.now() - started) / 1000);
  };
  await roundOf(); // warm-up
  const result = await noneVsSdk(10, roundOf);
  await app.close();
  return { judgmentsPerRound: batch, ...result };
}

/** 4. The queue flow on PostgreSQL and Redis (see bench/queue.bench.ts), no SDK vs SDK. */
async function queued() {
  const fixtures = await import('../test/queue/queue.fixtures');
  const { JevSimulator } = await import('nestjs-judgment/simulator');
  const database = 'judgment_bench_trace_telemetry';
  await fixtures.freshDatabase(database);
  const db = await fixtures.openDatabase(database);
  const simulator = new JevSimulator({ apiKey: fixtures.API_KEY, latencyMs: 50 });
  const url = await simulator.start(0);
  const prefix = `bench-trace-${process.pid}`;
  const app = await fixtures.createWorkerContext({ database, prefix, simulatorUrl: url, queue: { concurrency: 16 } });
  const judge = app.get(Judge);
  const decide = fixtures.inspectQueue('judgment-decide', prefix);
  const batch = 200;
  let done = 0;
  const roundOf = async () => {
    const customers = await db
      .getRepository(fixtures.Customer)
      .save(Array.from({ length: batch }, (_, i) => Object.assign(new fixtures.Customer(), { name: `C${done + i}` })));
    const started = performance.now();
    await Promise.all(customers.map((c) => judge.dispatch(new fixtures.RefundCheck(c, `Case ${c.id}.`))));
    done += batch;
    await fixtures.waitFor('the decide jobs', async () => (await decide.getCompletedCount()) >= done, 600_000);
    return batch / ((performance.now() - started) / 1000);
  };
  await roundOf(); // warm-up
  const result = await noneVsSdk(8, roundOf);
  await decide.close();
  await app.close();
  await simulator.stop();
  await db.destroy();
  const { clearPrefix } = await import('../test/support/redis');
  await clearPrefix(prefix);
  return { judgmentsPerRound: batch, engineLatencyMs: 50, workerConcurrency: 16, ...result };
}

async function main() {
  const { loadavg } = await import('node:os');
  const report: Record<string, unknown> = { loadBefore: loadavg().map((l) => round(l)) };
  report.decisionTrace = await decisionTrace();
  report.noSdkCalls = await noSdkOverhead();
  report.assessInProcess = await inProcess();
  if (process.argv.includes('--queue')) report.queue = await queued();
  report.loadAfter = loadavg().map((l) => round(l));
  console.log(JSON.stringify(report, null, 2));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
