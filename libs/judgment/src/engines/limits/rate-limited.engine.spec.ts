import { Provenance } from '../../assessment/provenance';
import { EngineRateLimitDeferred, EngineRateLimited } from '../../errors';
import { resolveLimiter } from '../../judgment.options';
import { Likelihood } from '../../questions';
import {
  BULK_LIMITS,
  type Engine,
  type EngineRequest,
  type EngineResponse,
  LIVE_LIMITS,
  QUEUED_LIMITS,
} from '../engine.interface';
import { connectionLimits } from './connection-limits';
import { ConnectionLimiter } from './connection.limiter';
import { RateLimitedEngine } from './rate-limited.engine';

/** An Engine that keeps the requests it was asked. */
class RecordingEngine implements Engine {
  readonly requests: EngineRequest[] = [];
  model(): string {
    return 'recording-1.0.0';
  }
  async answer(request: EngineRequest): Promise<EngineResponse> {
    this.requests.push(request);
    return { answers: { spam: 0.1 }, provenance: new Provenance('jev', 'recording-1.0.0', null, {}) };
  }
}

const request = (limits?: EngineRequest['limits']): EngineRequest => ({
  questions: new Map([['spam', Likelihood.that('Is this spam?')]]),
  evidence: { text: 'Hi' },
  limits,
});

function limited(requestsPerMinute: number, bulkShare = 0.5): { engine: RateLimitedEngine; inner: RecordingEngine } {
  const limits = connectionLimits('jev', { limits: { requestsPerMinute } })!;
  const limiter = new ConnectionLimiter(
    'jev',
    limits,
    { ...resolveLimiter({ maxWait: 0, bulkShare }), redis: null },
    'process',
  );
  const inner = new RecordingEngine();
  return { engine: new RateLimitedEngine(inner, limiter), inner };
}

describe('RateLimitedEngine: the round says how it treats the limits, in its request', () => {
  it('a queued round (QUEUED_LIMITS) is refused at once for the queue to pause; an inline one fails after maxWait', async () => {
    const { engine } = limited(1);
    await engine.answer(request(QUEUED_LIMITS));
    await expect(engine.answer(request(QUEUED_LIMITS))).rejects.toBeInstanceOf(EngineRateLimitDeferred);
    await expect(engine.answer(request(LIVE_LIMITS))).rejects.toBeInstanceOf(EngineRateLimited);
  });

  it('a request without limits is a live, inline round', async () => {
    const { engine } = limited(1);
    await engine.answer(request());
    await expect(engine.answer(request())).rejects.toBeInstanceOf(EngineRateLimited);
  });

  it('a bulk round (BULK_LIMITS) uses only its share of the window; live rounds still find the rest', async () => {
    const { engine } = limited(4, 0.5);
    await engine.answer(request(BULK_LIMITS));
    await engine.answer(request(BULK_LIMITS));
    await expect(engine.answer(request(BULK_LIMITS))).rejects.toBeInstanceOf(EngineRateLimited);
    await engine.answer(request(LIVE_LIMITS));
    await engine.answer(request(LIVE_LIMITS));
  });

  it('hands the driver the request as it came, its limits included (the HTTP client reads `defer` from it)', async () => {
    const { engine, inner } = limited(10);
    await engine.answer(request(QUEUED_LIMITS));
    expect(inner.requests[0].limits).toBe(QUEUED_LIMITS);
  });
});
