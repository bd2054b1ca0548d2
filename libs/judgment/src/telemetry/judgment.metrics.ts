import { type Counter, type Histogram, type MeterProvider, metrics } from '@opentelemetry/api';
import { INSTRUMENTATION_SCOPE } from './judgment.tracing';

/**
 * The package's metric instruments, made from the global MeterProvider (a no-op until the app registers an SDK).
 * Names follow the OpenTelemetry GenAI conventions for the model call, and a `judgment.` prefix otherwise.
 */
export interface JudgmentInstruments {
  /** Attempts by `judgment.name` and `judgment.status` (`assessed`, `cached`, `unassessed`). */
  readonly assessments: Counter;
  /** Recorded decisions by `judgment.name`, `judgment.decision`, `judgment.outcome`. */
  readonly decisions: Counter;
  /** Engine call duration in seconds (GenAI `gen_ai.client.operation.duration`). */
  readonly engineDuration: Histogram;
  /** Engine failures by `error.type` (the EngineFailed subclass). */
  readonly engineErrors: Counter;
  /** Tokens per call by `gen_ai.token.type` (`input`, `output`) (GenAI `gen_ai.client.token.usage`). */
  readonly tokens: Histogram;
  /** Cache lookups by `judgment.cache.result` (`hit`, `miss`). */
  readonly cacheLookups: Counter;
  /** Seconds from Review requested to resolved, by `judgment.name` and `judgment.resolution`. */
  readonly resolutionDuration: Histogram;
  /** Decisions made under an identity the calibration lock does not vouch for, by Judgment, Decision and policy. */
  readonly drifts: Counter;
  /** Audits by `judgment.audit.event` (`requested`, `agreed`, `disagreed`), Judgment and Decision. */
  readonly audits: Counter;
  /** Signal collapses begun, by `judgment.connection` and `gen_ai.response.model`. */
  readonly signalCollapses: Counter;
  /** What paid rounds cost (priced connections only), by `judgment.name`, `judgment.connection`, `judgment.currency`. */
  readonly cost: Counter;
}

let provider: MeterProvider | null = null;
let instruments: JudgmentInstruments | null = null;

/** The instruments of the current global MeterProvider (made again when the app registers another one). */
export function judgmentInstruments(): JudgmentInstruments {
  const current = metrics.getMeterProvider();
  if (instruments !== null && provider === current) return instruments;
  const meter = current.getMeter(INSTRUMENTATION_SCOPE);
  provider = current;
  instruments = {
    assessments: meter.createCounter('judgment.assessments', {
      description: 'Assessment attempts, by Judgment and status (assessed, cached, unassessed).',
    }),
    decisions: meter.createCounter('judgment.decisions', {
      description: 'Recorded decisions, by Judgment, Decision and Outcome.',
    }),
    engineDuration: meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'Duration of an Engine call.',
      unit: 's',
      advice: { explicitBucketBoundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48] },
    }),
    engineErrors: meter.createCounter('judgment.engine.errors', {
      description: 'Engine failures, by error class.',
    }),
    tokens: meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Tokens used by an Engine call, by token type.',
      unit: '{token}',
      advice: { explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576] },
    }),
    cacheLookups: meter.createCounter('judgment.cache.lookups', {
      description: 'Assessment cache lookups, by result (hit, miss).',
    }),
    resolutionDuration: meter.createHistogram('judgment.review.resolution.duration', {
      description: 'Time from Review requested to resolved.',
      unit: 's',
      advice: { explicitBucketBoundaries: [60, 300, 900, 3600, 14400, 86400, 259200, 604800] },
    }),
    drifts: meter.createCounter('judgment.calibration.drifts', {
      description: 'Decisions made under an identity the calibration lock does not vouch for.',
    }),
    audits: meter.createCounter('judgment.audits', {
      description: 'Audits of automatic Outcomes: requested, then agreed or disagreed when resolved.',
    }),
    signalCollapses: meter.createCounter('judgment.signal.collapses', {
      description: "Collapses of an Engine's signal (near-certain answers, low entropy) against its calibration.",
    }),
    cost: meter.createCounter('judgment.cost', {
      description: "What paid Engine rounds cost at the connection's price, in judgment.currency.",
    }),
  };
  return instruments;
}
