import {
  type Attributes,
  type Context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
  context,
  isSpanContextValid,
  propagation,
  trace,
} from '@opentelemetry/api';

/** The instrumentation scope of the package's spans and metrics. */
export const INSTRUMENTATION_SCOPE = 'nestjs-judgment';

/** W3C trace context as it travels in a job's data (`traceparent`, `tracestate`): plain strings only. */
export type TraceCarrier = Record<string, string>;

/** What a span is started with besides its name. */
export interface SpanOptions {
  /**
   * Given as an object: set when the span starts (samplers see them). Given as a function: called only when the span
   * records, for attributes that cost something to build (a parsed URL, several strings).
   */
  readonly attributes?: Attributes | (() => Attributes);
  readonly kind?: SpanKind;
  /** The parent context (default: the active one). */
  readonly parent?: Context;
  readonly links?: Link[];
}

let tracing: { readonly provider: TracerProvider; readonly tracer: Tracer } | null = null;

/**
 * The package's tracer from the global TracerProvider. The API hands out the same proxy provider before and after an
 * SDK registers (the proxy delegates), so this is got again only when the global provider object itself changes
 * (after `trace.disable()`).
 */
function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (tracing?.provider !== provider) tracing = { provider, tracer: provider.getTracer(INSTRUMENTATION_SCOPE) };
  return tracing.tracer;
}

/**
 * Runs `work` inside a span of the package (through `@opentelemetry/api` only: a no-op unless the app registered an
 * SDK). The span is active while `work` runs, so spans started inside are its children; an error is recorded on it
 * (`error.type` = the error's class) and rethrown unchanged. With no SDK the span is the no-op API's echo of its
 * parent: when that parent is the active context, nothing is built, activated or recorded, and `work` runs as it
 * would without telemetry; with an explicit parent (a job's carried trace) the echo is still made active for `work`.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T> | T): Promise<T> {
  const active = context.active();
  const parent = options.parent ?? active;
  const { attributes } = options;
  const span = tracer().startSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      attributes: typeof attributes === 'function' ? undefined : attributes,
      links: options.links,
    },
    parent,
  );
  if (parent === active && echoesParent(span, parent)) return work(span);
  if (typeof attributes === 'function' && span.isRecording()) span.setAttributes(attributes());
  try {
    return await context.with(trace.setSpan(parent, span), work, undefined, span);
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Whether a span adds nothing to its parent context: not recording, and the parent's own span context (or none). */
function echoesParent(span: Span, parent: Context): boolean {
  if (span.isRecording()) return false;
  const own = span.spanContext();
  if (!isSpanContextValid(own)) return true;
  const parentSpan = trace.getSpanContext(parent);
  return parentSpan !== undefined && parentSpan.spanId === own.spanId && parentSpan.traceId === own.traceId;
}

/** Marks a span failed by `error`: status ERROR, `error.type` = its class, the exception event (message, no cause). */
function failSpan(span: Span, error: unknown): void {
  const type = error instanceof Error ? error.constructor.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  span.setAttribute('error.type', type);
  span.recordException({ name: type, message });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * One HTTP request of an Engine driver in a CLIENT span with the HTTP client conventions' attributes: method, the URL
 * without credentials or query, server address and port, `http.request.resend_count` for a retry, and the response's
 * `http.response.status_code` (a status of 400 or more fails the span, `error.type` = the status code).
 */
export function inHttpSpan<T extends { status: number }>(
  method: string,
  url: string,
  resendCount: number,
  send: () => Promise<T>,
): Promise<T> {
  const attributes = (): Attributes => {
    const target = new URL(url);
    return {
      'http.request.method': method,
      'url.full': `${target.protocol}//${target.host}${target.pathname}`,
      'server.address': target.hostname,
      'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
      ...(resendCount > 0 ? { 'http.request.resend_count': resendCount } : {}),
    };
  };
  return inSpan(method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const response = await send();
    span.setAttribute('http.response.status_code', response.status);
    if (response.status >= 400) {
      span.setAttribute('error.type', String(response.status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return response;
  });
}

/** The active trace context as a carrier to put in a job's data; undefined when no propagator or span is active. */
export function traceCarrier(): TraceCarrier | undefined {
  if (propagation.fields().length === 0) return undefined; // the no-op propagator: no SDK registered
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length === 0 ? undefined : carrier;
}

const CARRIER_GETTER: TextMapGetter<unknown> = {
  keys: (carrier) => (isCarrier(carrier) ? Object.keys(carrier) : []),
  get: (carrier, key) => {
    const value = isCarrier(carrier) ? carrier[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  },
};

/** The context a job's carrier describes (the dispatching trace), or the root context when it carries none. */
export function contextFromCarrier(carrier: unknown): Context {
  return isCarrier(carrier) ? propagation.extract(ROOT_CONTEXT, carrier, CARRIER_GETTER) : ROOT_CONTEXT;
}

/** The span context of a context, to start a later span under it (a decision after its assessment's span ended). */
export function activeContext(): Context {
  return context.active();
}

function isCarrier(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export { type Context, SpanKind };
