import { Provenance } from '../assessment/provenance';
import { EngineBudgetExhausted } from '../errors';
import { Likelihood } from '../questions/likelihood';
import type { Engine, EngineRequest, EngineResponse } from './engine.interface';
import { MeteredEngine, UsageMeter } from './metering';

/** An Engine that spends 40 input tokens per round and answers after a few turns of the event loop. */
class FortyTokens implements Engine {
  asked = 0;
  model(): string {
    return 'forty-1.0.0';
  }
  async answer(): Promise<EngineResponse> {
    this.asked += 1;
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    return {
      answers: { q: 0.5 },
      provenance: new Provenance('forty', 'forty-1.0.0', null, { usage: { input_tokens: 40 } }),
    };
  }
}

const request: EngineRequest = { questions: new Map([['q', Likelihood.that('Is it?')]]), evidence: {} };

describe('MeteredEngine', () => {
  it('at the ceiling refuses without asking, and requests in flight count against the budget', async () => {
    const engine = new FortyTokens();
    const metered = new MeteredEngine('forty', engine, 100, new UsageMeter());
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => metered.answer(request)));
    // As one at a time would: 0 → 40 → 80 are under the ceiling, 120 is not.
    expect(engine.asked).toBe(3);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(5);
    for (const result of refused)
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(EngineBudgetExhausted);
  });

  it('without a budget every request is asked at once, and usage is counted', async () => {
    const engine = new FortyTokens();
    const meter = new UsageMeter();
    await Promise.all(Array.from({ length: 8 }, () => new MeteredEngine('forty', engine, null, meter).answer(request)));
    expect(engine.asked).toBe(8);
    expect(meter.usage('forty')).toBe(320);
    expect(meter.lastModel()).toBe('forty-1.0.0');
  });
});
