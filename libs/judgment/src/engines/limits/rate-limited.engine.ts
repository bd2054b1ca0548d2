import type { Question } from '../../questions/question';
import { EngineRateLimitDeferred, EngineRateLimited } from '../../errors';
import { type Engine, type EngineRequest, type EngineResponse, LIVE_LIMITS } from '../engine.interface';
import type { ConnectionLimiter } from './connection.limiter';

/**
 * A connection's Engine behind its rate limits: each call takes a request and its estimated input tokens (the size
 * of the connection's last answer) from the window first, and the answer's reported usage corrects the estimate.
 * An Engine's 429 closes the window for its retry-after, for every process sharing the counters.
 */
export class RateLimitedEngine implements Engine {
  /** Input tokens of the last answer: what the next call is expected to spend. */
  private lastTokens = 0;

  constructor(
    readonly engine: Engine,
    readonly limiter: ConnectionLimiter,
  ) {}

  model(): string {
    return this.engine.model();
  }

  get scripted(): boolean {
    return this.engine.scripted === true;
  }

  refusals(questions: ReadonlyMap<string, Question>): readonly string[] {
    return this.engine.refusals?.(questions) ?? [];
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    const reservation = await this.limiter.acquire(this.lastTokens, request.limits ?? LIVE_LIMITS);
    let response: EngineResponse;
    try {
      response = await this.engine.answer(request);
    } catch (error) {
      const retryAfterMs =
        error instanceof EngineRateLimitDeferred || error instanceof EngineRateLimited ? error.retryAfterMs : null;
      if (retryAfterMs !== null) await this.limiter.block(retryAfterMs);
      throw error;
    }
    const used = inputTokens(response);
    if (used !== null) this.lastTokens = used;
    await this.limiter.settle(reservation, used);
    return response;
  }
}

function inputTokens(response: EngineResponse | undefined): number | null {
  const usage = response?.provenance?.details?.usage as { input_tokens?: unknown } | null | undefined;
  const tokens = usage?.input_tokens;
  return typeof tokens === 'number' && Number.isFinite(tokens) ? tokens : null;
}
