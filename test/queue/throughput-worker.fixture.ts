// A queue worker process of bench/worker-throughput.bench.ts: the assess, decide and review workers (queue.concurrency
// BW_CONCURRENCY) on the bench's database and BullMQ prefix, asking the simulator through a connection with the limits
// in BW_LIMITS (JSON), counted under BW_LIMITER_PREFIX; on one Redis (JUDGMENT_TEST_REDIS_PORT), or on a Redis Cluster when BW_CLUSTER_PORTS lists its
// nodes. Prints `ready` once its workers run; SIGUSR2 prints its event loop's delay (and with BENCH_SPANS=1 its spans'
// durations); SIGTERM closes it.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Cluster } from 'ioredis';
import { API_KEY, MODEL, createWorkerContext } from './queue.fixtures';
import { CLUSTER_CLIENT_OPTIONS } from '../support/redis-cluster';

/**
 * With BENCH_SPANS=1, the library's spans are kept in memory (an OpenTelemetry SDK of this process), so SIGUSR2 can
 * also print, to stderr, each span's count and p50/p90 duration since the last one: where a job's time goes (the
 * Engine's POST, the record's INSERT, the whole job).
 */
const spans = process.env.BENCH_SPANS === '1' ? new InMemorySpanExporter() : null;
if (spans) trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));

function printSpans(exporter: InMemorySpanExporter): void {
  const durations = new Map<string, number[]>();
  for (const span of exporter.getFinishedSpans()) {
    const ms = span.duration[0] * 1000 + span.duration[1] / 1e6;
    durations.set(span.name, [...(durations.get(span.name) ?? []), ms]);
  }
  const at = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const summary = [...durations].map(([name, list]) => {
    const sorted = list.sort((a, b) => a - b);
    return `${name}: ${sorted.length}, p50 ${at(sorted, 0.5).toFixed(1)} ms, p90 ${at(sorted, 0.9).toFixed(1)} ms`;
  });
  console.error(`spans of worker ${process.pid}:\n  ${summary.join('\n  ')}`);
  exporter.reset();
}

async function main() {
  const env = (name: string) => {
    const value = process.env[name];
    if (value === undefined) throw new Error(`throughput-worker.fixture.ts needs ${name}.`);
    return value;
  };
  const ports = process.env.BW_CLUSTER_PORTS;
  const cluster = ports
    ? new Cluster(
        ports.split(',').map((port) => ({ host: '127.0.0.1', port: Number(port) })),
        CLUSTER_CLIENT_OPTIONS,
      )
    : undefined;
  const url = env('BW_SIMULATOR_URL');
  const concurrency = Number(env('BW_CONCURRENCY'));
  const decideConcurrency = process.env.BW_DECIDE_CONCURRENCY ? Number(process.env.BW_DECIDE_CONCURRENCY) : undefined;
  const app = await createWorkerContext({
    database: env('BW_DATABASE'),
    prefix: env('BW_PREFIX'),
    connection: cluster,
    simulatorUrl: url,
    // BW_DECIDE_CONCURRENCY, when given, instead of the library's default (a quarter of the concurrency).
    queue: { concurrency, ...(decideConcurrency ? { decideConcurrency } : {}) },
    // As the README sizes it: each assess job writes its record, and each decide job its Outcome.
    poolSize: concurrency + (decideConcurrency ?? Math.ceil(concurrency / 4)),
    options: {
      engines: {
        jev: { driver: 'jev', key: API_KEY, url, model: MODEL, retries: 0, limits: JSON.parse(env('BW_LIMITS')) },
      },
      limiter: { prefix: env('BW_LIMITER_PREFIX') },
    },
  });
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => cluster?.quit())
      .then(() => process.exit(0));
  });
  // SIGUSR2: prints how late the event loop ran its work since the last one (`delay <p50 ms> <p99 ms>`: each sample
  // is the interval between two ticks of a 10 ms timer, less those 10 ms) and starts anew.
  const RESOLUTION_MS = 10;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  const late = (percentile: number) => Math.max(0, delay.percentile(percentile) / 1e6 - RESOLUTION_MS);
  process.on('SIGUSR2', () => {
    console.log(`delay ${late(50)} ${late(99)}`);
    if (spans) printSpans(spans);
    delay.reset();
  });
  console.log('ready');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
