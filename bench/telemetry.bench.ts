// What observability costs (issue 19), each figure measured against its baseline side by side in one run:
//   1. Decision trace: µs per decision, applyDecision (no trace, as before) vs applyTracedDecision (what recording runs).
//   2. No SDK: the package's OpenTelemetry calls of one assessment (5 spans, the metric instruments) through the
//      no-op API vs the same async work without them, in µs per assessment.
//   3. Assess + decide in-process (mock Engine, SQLite in memory): throughput with no SDK, with only the SDK's async
//      context manager, and with the SDK (batch span processor, in-memory exporter, a metric reader).
//   4. With --queue: the queue flow (real PostgreSQL and Redis, the Jev simulator, as bench/queue.bench.ts), the same
//      three variants. Run it under the e2e lock on a shared machine.
//   5. With --against <checkout>: no SDK, this checkout's library against another's (main, or the commit before a
//      change, with this bench file copied in): each round runs the bench once in each checkout, alternating which
//      goes first; the queue flow's judgments per second and the no-op API calls' µs.
// Throughputs run in rounds that alternate the variants (A B C, B C A, ...); each round's ratio to no SDK is paired
// within the round, and the summary gives the median ratio and its spread (lowest–highest) with the machine's load.
// Beside judgments per second (wall clock) each round measures this process's CPU time per judgment, which a loaded
// machine disturbs far less: on a shared machine, read the CPU ratios first.
//   node -r ./scripts/register.js bench/telemetry.bench.ts [--queue] [--rounds N] [--against <checkout>]
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
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

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const load = () => loadavg().map((l) => round(l));

/** The command line: `--queue`, `--rounds N` (throughput rounds, at least 3), `--against <checkout>`, `--child`. */
const argv = process.argv.slice(2);
const option = (name: string) => {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
};
const ROUNDS = Math.max(3, Number(option('--rounds') ?? 7));

/** Alternates the variants for `rounds` rounds, rotating which goes first; each variant's results in round order. */
async function alternating<K extends string, T>(rounds: number, variants: Record<K, () => Promise<T>>) {
  const names = Object.keys(variants) as K[];
  const timings = Object.fromEntries(names.map((name) => [name, [] as T[]])) as Record<K, T[]>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length];
      timings[name].push(await variants[name]());
    }
  }
  return timings;
}

/** The median of each variant's timings. */
async function sideBySide<K extends string>(rounds: number, variants: Record<K, () => Promise<number>>) {
  const timings = await alternating(rounds, variants);
  return Object.fromEntries(
    Object.entries(timings).map(([name, values]) => [name, median(values as number[])]),
  ) as Record<K, number>;
}

/** Ratios of paired rounds (`of[i] / to[i]`): their median and spread, and how many rounds. */
function ratios(of: number[], to: number[]) {
  const each = of.map((value, i) => value / to[i]);
  return {
    median: round(median(each), 3),
    lowest: round(Math.min(...each), 3),
    highest: round(Math.max(...each), 3),
    rounds: each.length,
  };
}
type Ratio = ReturnType<typeof ratios>;

/**
 * A throughput round: judgments per second (wall clock, what a loaded machine disturbs most) and this process's CPU
 * time per judgment in µs (user + system, steadier under load: the cost itself rather than the time waited for it).
 */
interface Round {
  readonly perSecond: number;
  readonly cpuUs: number;
}

async function measured(judgments: number, work: () => Promise<unknown>): Promise<Round> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return {
    perSecond: judgments / ((performance.now() - started) / 1000),
    cpuUs: (used.user + used.system) / judgments,
  };
}

const perSecondOf = (rounds: Round[]) => rounds.map((r) => r.perSecond);
const cpuOf = (rounds: Round[]) => rounds.map((r) => r.cpuUs);

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
 * per second of each (medians) and each round's ratio to no SDK (median, spread), with the load before and after.
 */
async function noneVsSdk(rounds: number, roundOf: () => Promise<Round>) {
  const registered = (contextOnly: boolean) => async () => {
    const unregister = registerSdk(contextOnly);
    try {
      return await roundOf();
    } finally {
      await unregister();
    }
  };
  const loadBefore = load();
  const { none, contextOnly, sdk } = await alternating(rounds, {
    none: roundOf,
    contextOnly: registered(true),
    sdk: registered(false),
  });
  return {
    noSdkPerSecond: Math.round(median(perSecondOf(none))),
    contextManagerOnlyPerSecond: Math.round(median(perSecondOf(contextOnly))),
    sdkPerSecond: Math.round(median(perSecondOf(sdk))),
    contextManagerOnlyRatio: ratios(perSecondOf(contextOnly), perSecondOf(none)),
    sdkRatio: ratios(perSecondOf(sdk), perSecondOf(none)),
    cpuUsPerJudgment: {
      noSdk: Math.round(median(cpuOf(none))),
      contextManagerOnly: Math.round(median(cpuOf(contextOnly))),
      sdk: Math.round(median(cpuOf(sdk))),
    },
    contextManagerOnlyCpuRatio: ratios(cpuOf(contextOnly), cpuOf(none)),
    sdkCpuRatio: ratios(cpuOf(sdk), cpuOf(none)),
    load: { before: loadBefore, after: load() },
  };
}

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
  const roundOf = () =>
    measured(batch, async () => {
      for (let i = 0; i < batch; i++) await (await judge.assess(new BenchRefund(`Case ${n++}.`))).outcome();
    });
  await roundOf(); // warm-up
  const result = await noneVsSdk(ROUNDS, roundOf);
  await app.close();
  return { judgmentsPerRound: batch, ...result };
}

/**
 * 4. The queue flow on PostgreSQL and Redis (see bench/queue.bench.ts): one process dispatches and works the jobs;
 * a round ends when its last decision is announced (AssessmentDecided, counted in process, no polling of Redis).
 * `measure` runs the rounds: the three variants, or (for `--against`) the no-SDK rounds alone.
 */
async function queued<T>(measure: (roundOf: () => Promise<Round>) => Promise<T>) {
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
  const decided = app.get(fixtures.EventLog).decided;
  const batch = 200;
  let done = 0;
  const roundOf = async () => {
    const customers = await db
      .getRepository(fixtures.Customer)
      .save(Array.from({ length: batch }, (_, i) => Object.assign(new fixtures.Customer(), { name: `C${done + i}` })));
    const round = await measured(batch, async () => {
      await Promise.all(customers.map((c) => judge.dispatch(new fixtures.RefundCheck(c, `Case ${c.id}.`))));
      while (decided.length < batch) await new Promise((resolve) => setTimeout(resolve, 2));
    });
    decided.length = 0;
    done += batch;
    return round;
  };
  await roundOf(); // warm-up
  const result = await measure(roundOf);
  await app.close();
  await simulator.stop();
  await db.destroy();
  const { clearPrefix } = await import('../test/support/redis');
  await clearPrefix(prefix);
  return { judgmentsPerRound: batch, engineLatencyMs: 50, workerConcurrency: 16, ...result };
}

/** What a `--child` run prints as its last line: its no-SDK figures. */
interface ChildFigures {
  readonly noSdkCallsExtraUs: number;
  readonly queueNoSdkPerSecond: number;
  readonly queueNoSdkCpuUs: number;
}

/** One run of this bench in `checkout` with `--child`. */
function childRun(checkout: string): Promise<ChildFigures> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['-r', './scripts/register.js', 'bench/telemetry.bench.ts', '--child'], {
      cwd: checkout,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.on('error', fail);
    child.on('exit', (code) => {
      if (code !== 0) return fail(new Error(`The bench in ${checkout} exited with ${code}.`));
      done(JSON.parse(output.trim().split('\n').pop()!));
    });
  });
}

/** 5. No SDK: this checkout against another, one child run of each per round, alternating which goes first. */
async function againstCheckout(other: string) {
  const loadBefore = load();
  const runs = await alternating(ROUNDS, { other: () => childRun(other), here: () => childRun(resolve('.')) });
  const of = (side: 'other' | 'here', figure: keyof ChildFigures) => runs[side].map((run) => run[figure]);
  const medianOf = (side: 'other' | 'here', figure: keyof ChildFigures, digits = 0) =>
    round(median(of(side, figure)), digits);
  return {
    other,
    queueNoSdkPerSecond: {
      other: medianOf('other', 'queueNoSdkPerSecond'),
      here: medianOf('here', 'queueNoSdkPerSecond'),
    },
    queueNoSdkRatio: ratios(of('here', 'queueNoSdkPerSecond'), of('other', 'queueNoSdkPerSecond')),
    queueNoSdkCpuUs: { other: medianOf('other', 'queueNoSdkCpuUs'), here: medianOf('here', 'queueNoSdkCpuUs') },
    queueNoSdkCpuRatio: ratios(of('here', 'queueNoSdkCpuUs'), of('other', 'queueNoSdkCpuUs')),
    noSdkCallsExtraUs: {
      other: medianOf('other', 'noSdkCallsExtraUs', 3),
      here: medianOf('here', 'noSdkCallsExtraUs', 3),
    },
    load: { before: loadBefore, after: load() },
  };
}

const ratioText = (ratio: Ratio) =>
  `×${ratio.median.toFixed(3)} (${ratio.lowest.toFixed(3)}–${ratio.highest.toFixed(3)}, ${ratio.rounds} rounds)`;
const lossText = (ratio: Ratio) => `${round((1 - ratio.median) * 100, 1)} %`;

/** The one block to quote: every figure with its baseline, ratio spreads and the machine's load. */
function summary(report: Record<string, any>): string {
  const lines = [
    '=== telemetry bench (issue 19): summary ===',
    `node ${process.version}, ${cpus().length} CPUs; load (1/5/15 min) at start ` +
      `${report.loadBefore.join(' ')}, at end ${report.loadAfter.join(' ')}`,
  ];
  const { decisionTrace: trace, noSdkCalls: calls } = report;
  if (trace) {
    lines.push(
      `decision trace: +${trace.extraUs} µs per decision (${trace.untracedUsPerDecision} → ` +
        `${trace.tracedUsPerDecision} µs)`,
    );
  }
  if (calls) {
    lines.push(
      `no SDK, the telemetry calls of one assessment: +${calls.extraUs} µs (${calls.withoutUsPerAssessment} → ` +
        `${calls.noSdkUsPerAssessment} µs)`,
    );
  }
  for (const [key, label] of [
    ['assessInProcess', 'assess+decide in process'],
    ['queue', 'queue flow'],
  ] as const) {
    const flow = report[key];
    if (!flow) continue;
    const cpu = flow.cpuUsPerJudgment;
    lines.push(
      `${label}: no SDK ${flow.noSdkPerSecond}/s; context manager only ${ratioText(flow.contextManagerOnlyRatio)}; ` +
        `SDK ${flow.sdkPerSecond}/s ${ratioText(flow.sdkRatio)} = ${lossText(flow.sdkRatio)} loss; ` +
        `load ${flow.load.before.join(' ')} → ${flow.load.after.join(' ')}`,
      `${label}, CPU µs per judgment: no SDK ${cpu.noSdk}; context manager only ${cpu.contextManagerOnly} ` +
        `${ratioText(flow.contextManagerOnlyCpuRatio)}; SDK ${cpu.sdk} ${ratioText(flow.sdkCpuRatio)}`,
    );
  }
  const against = report.against;
  if (against) {
    lines.push(
      `no SDK, this checkout vs ${against.other}: queue ${against.queueNoSdkPerSecond.other}/s → ` +
        `${against.queueNoSdkPerSecond.here}/s ${ratioText(against.queueNoSdkRatio)}; telemetry calls ` +
        `+${against.noSdkCallsExtraUs.other} µs → +${against.noSdkCallsExtraUs.here} µs; queue CPU µs per judgment ` +
        `${against.queueNoSdkCpuUs.other} → ${against.queueNoSdkCpuUs.here} ${ratioText(against.queueNoSdkCpuRatio)}; ` +
        `load ${against.load.before.join(' ')} → ${against.load.after.join(' ')}`,
    );
  }
  return lines.join('\n');
}

async function main() {
  if (argv.includes('--child')) {
    const calls = await noSdkOverhead();
    const queue = await queued(async (roundOf) => {
      const rounds: Round[] = [];
      for (let i = 0; i < 3; i++) rounds.push(await roundOf());
      return { noSdkPerSecond: median(perSecondOf(rounds)), noSdkCpuUs: median(cpuOf(rounds)) };
    });
    const figures: ChildFigures = {
      noSdkCallsExtraUs: calls.extraUs,
      queueNoSdkPerSecond: queue.noSdkPerSecond,
      queueNoSdkCpuUs: queue.noSdkCpuUs,
    };
    console.log(JSON.stringify(figures));
    return;
  }
  const report: Record<string, unknown> = { loadBefore: load() };
  const other = option('--against');
  if (other) report.against = await againstCheckout(resolve(other));
  else {
    report.decisionTrace = await decisionTrace();
    report.noSdkCalls = await noSdkOverhead();
    report.assessInProcess = await inProcess();
    if (argv.includes('--queue')) report.queue = await queued((roundOf) => noneVsSdk(ROUNDS, roundOf));
  }
  report.loadAfter = load();
  console.log(JSON.stringify(report, null, 2));
  console.log(summary(report));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
