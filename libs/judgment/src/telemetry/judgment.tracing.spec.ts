import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SpanKind, inHttpSpan, inSpan, traceCarrier } from './judgment.tracing';

afterEach(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

describe('inSpan with no SDK registered', () => {
  it('builds no lazy attributes, leaves the active context as it is and returns what the work returns', async () => {
    const attributes = jest.fn(() => ({ 'judgment.name': 'refund' }));
    const outer = context.active();
    const result = await inSpan('judgment.assess', { attributes }, (span) => {
      expect(span.isRecording()).toBe(false);
      expect(context.active()).toBe(outer);
      return 'done';
    });
    expect(result).toBe('done');
    expect(attributes).not.toHaveBeenCalled();
  });

  it('even with a context manager (no tracer): the work runs in the caller’s context', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const key = Symbol('request');
    await context.with(context.active().setValue(key, 'r-1'), () =>
      inSpan('judgment.assess', {}, () => expect(context.active().getValue(key)).toBe('r-1')),
    );
  });

  it('rejects with the work’s error unchanged, thrown or rejected', async () => {
    const failure = new RangeError('bad');
    await expect(
      inSpan('x', {}, () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    await expect(inSpan('x', {}, () => Promise.reject(failure))).rejects.toBe(failure);
  });

  it('puts no trace context in a job (no propagator)', () => {
    expect(traceCarrier()).toBeUndefined();
  });
});

describe('inSpan with the SDK registered', () => {
  let spans: InMemorySpanExporter;
  beforeEach(() => {
    spans = new InMemorySpanExporter();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  });

  it('sets lazy attributes, makes the span the parent of spans inside and of the job carrier', async () => {
    let carrier: Record<string, string> | undefined;
    await inSpan('send judgment-assess', { kind: SpanKind.PRODUCER, attributes: () => ({ 'a.b': 'c' }) }, () =>
      inHttpSpan('POST', 'https://user:secret@jev.example/v1/judgments?key=k', 1, async () => {
        carrier = traceCarrier();
        return { status: 200 };
      }),
    );
    const [post, send] = spans.getFinishedSpans();
    expect(send.attributes).toEqual({ 'a.b': 'c' });
    expect(post.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
    expect(post.attributes).toEqual({
      'http.request.method': 'POST',
      'url.full': 'https://jev.example/v1/judgments',
      'server.address': 'jev.example',
      'server.port': 443,
      'http.request.resend_count': 1,
      'http.response.status_code': 200,
    });
    expect(carrier?.traceparent).toContain(post.spanContext().spanId);
  });

  it('fails the span with error.type and rethrows the error', async () => {
    const failure = new RangeError('bad');
    await expect(inSpan('judgment.decide', {}, () => Promise.reject(failure))).rejects.toBe(failure);
    const [span] = spans.getFinishedSpans();
    expect(span.attributes['error.type']).toBe('RangeError');
    expect(span.status).toEqual({ code: 2, message: 'bad' });
  });
});
