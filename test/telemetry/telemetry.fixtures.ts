// Shared by the telemetry suite and the worker process it spawns: the OpenTelemetry SDK registered globally with
// in-memory exporters (as an app registers its SDK before Nest starts), and a queue app on real PostgreSQL and Redis
// (this suite's own database and key prefix), built from the queue suites' Judgments.
import { writeFileSync } from 'node:fs';
import { BullModule } from '@nestjs/bullmq';
import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { JudgmentModule, type ResolutionPolicy } from 'nestjs-judgment';
import { PG } from '../support/postgres';
import { REDIS } from '../support/redis';
import { API_KEY, MODEL, Moderation, RefundCheck, entities } from '../queue/queue.fixtures';

/** A metric reader the test collects from on demand. */
export class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export interface Telemetry {
  readonly spans: InMemorySpanExporter;
  readonly reader: CollectingReader;
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
}

/** Registers the SDK globally: tracer (in-memory spans), meter (collected on demand), W3C propagation, async context. */
export function registerTelemetry(): Telemetry {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return { spans, reader, tracerProvider, meterProvider };
}

/** Unregisters what registerTelemetry registered. */
export async function unregisterTelemetry(telemetry: Telemetry): Promise<void> {
  await telemetry.tracerProvider.shutdown();
  await telemetry.meterProvider.shutdown();
  trace.disable();
  metrics.disable();
  propagation.disable();
  context.disable();
}

/** What the metric reader holds now (cumulative since the SDK was registered); fails on a collection error. */
export async function collectMetrics(telemetry: Telemetry): Promise<ResourceMetrics> {
  const { resourceMetrics, errors } = await telemetry.reader.collect();
  if (errors.length > 0) throw new AggregateError(errors, 'The metric collection failed.');
  return resourceMetrics;
}

/** The data points of a metric, as [attributes, value] (value: the sum, or the histogram's count). */
export function points(metrics: ResourceMetrics, name: string): Array<[Record<string, unknown>, number]> {
  const metric = metrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
  if (!metric) return [];
  return metric.dataPoints.map((point) => [
    point.attributes,
    typeof point.value === 'number' ? point.value : (point.value as { count: number }).count,
  ]);
}

/** The total of a counter's points whose attributes include `attributes`. */
export function counted(metrics: ResourceMetrics, name: string, attributes: Record<string, unknown>): number {
  return points(metrics, name)
    .filter(([seen]) => Object.entries(attributes).every(([key, value]) => seen[key] === value))
    .reduce((sum, [, value]) => sum + value, 0);
}

/** A span as the worker process reports it to the test. */
export interface SpanView {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly attributes: Record<string, unknown>;
  readonly status: number;
}

export function spanView(span: ReadableSpan): SpanView {
  return {
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? null,
    attributes: { ...span.attributes },
    status: span.status.code,
  };
}

/** Writes the finished spans to `path` (what the worker process hands the test). */
export function writeSpans(path: string, spans: InMemorySpanExporter): void {
  writeFileSync(path, JSON.stringify(spans.getFinishedSpans().map(spanView)));
}

export interface TelemetryAppSettings {
  readonly database: string;
  readonly prefix: string;
  readonly simulatorUrl: string;
  /** False for the API side: it dispatches, another process works the jobs. */
  readonly workers: boolean;
}

/** Lets every reviewer claim and resolve (the review spans' test). */
export class AnyAgent implements ResolutionPolicy {
  canResolve(): boolean {
    return true;
  }
}

/** The app: PostgreSQL, BullMQ on the suite's prefix, the jev connection on the simulator, the queue on. */
export function telemetryAppModule(settings: TelemetryAppSettings) {
  @Module({
    imports: [
      TypeOrmModule.forRoot({
        ...PG,
        database: settings.database,
        entities,
        retryAttempts: 0,
      }),
      EventEmitterModule.forRoot(),
      BullModule.forRoot({ connection: REDIS, prefix: settings.prefix }),
      JudgmentModule.forRoot({
        engine: 'jev',
        engines: { jev: { driver: 'jev', key: API_KEY, url: settings.simulatorUrl, model: MODEL, retries: 0 } },
        log: false,
        queue: { enabled: true, runWorkers: settings.workers },
        resolutionPolicy: AnyAgent,
      }),
      JudgmentModule.forFeature([RefundCheck, Moderation]),
    ],
  })
  class TelemetryAppModule {}
  return TelemetryAppModule;
}

export function startTelemetryApp(settings: TelemetryAppSettings): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(telemetryAppModule(settings), { logger: ['error'] });
}
