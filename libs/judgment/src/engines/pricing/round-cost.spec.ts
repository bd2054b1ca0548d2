import {
  EngineFailed,
  EngineOverloaded,
  EngineRateLimited,
  EngineRejectedRequest,
  MalformedEngineResponse,
} from '../../errors';
import type { ResolvedPrice } from './connection-price';
import { NOTHING_PAID, addPaid, paidForFailure, paidUsage, roundCost, roundedCost } from './round-cost';

const price = (figures: Partial<ResolvedPrice>): ResolvedPrice => ({
  inputPerMillion: null,
  outputPerMillion: null,
  perRequest: null,
  currency: 'USD',
  ...figures,
});

describe('the cost of a round', () => {
  it('is tokens × price per million plus requests × price per request, exactly to 12 places', () => {
    const paid = paidUsage({ input_tokens: 1234, output_tokens: 56 });
    const cost = roundCost('cheap', price({ inputPerMillion: 0.15, outputPerMillion: 0.6, perRequest: 0.0001 }), paid);
    // 1234 × 0.15 / 1e6 + 56 × 0.6 / 1e6 + 1 × 0.0001 = 0.0001851 + 0.0000336 + 0.0001
    expect(cost.amount).toBe(0.0003187);
    expect(cost.currency).toBe('USD');
    expect(cost.basis).toEqual({
      connection: 'cheap',
      inputTokens: 1234,
      outputTokens: 56,
      requests: 1,
      price: price({ inputPerMillion: 0.15, outputPerMillion: 0.6, perRequest: 0.0001 }),
      note: null,
    });
  });

  it('counts the requests a driver reports for the round (openai: one per Question)', () => {
    const paid = paidUsage({ input_tokens: 300, output_tokens: 3, requests: 3 });
    expect(roundCost('gpt', price({ perRequest: 0.01, currency: 'EUR' }), paid)).toMatchObject({
      amount: 0.03,
      currency: 'EUR',
    });
  });

  it('rounds away binary noise (7 × 0.3 / 1e6 is 0.0000021)', () => {
    expect((7 * 0.3) / 1e6).not.toBe(0.0000021);
    expect(roundCost('c', price({ inputPerMillion: 0.3 }), paidUsage({ input_tokens: 7 })).amount).toBe(0.0000021);
    expect(roundedCost(0.1 + 0.2)).toBe(0.3);
  });

  it('is null with the reason when the connection declares no price', () => {
    const cost = roundCost('jev', null, paidUsage({ input_tokens: 10 }));
    expect(cost.amount).toBeNull();
    expect(cost.currency).toBeNull();
    expect(cost.basis.note).toBe('The connection "jev" declares no price (engines.jev.price).');
    expect(cost.basis.inputTokens).toBe(10);
  });

  it('is null with the reason when a priced token count was not reported, never guessed', () => {
    const cost = roundCost('c', price({ outputPerMillion: 2 }), paidUsage({ input_tokens: 10 }));
    expect(cost.amount).toBeNull();
    expect(cost.currency).toBe('USD');
    expect(cost.basis.note).toMatch(/reported no output token count, and engines\.c\.price charges for it/);
  });

  it('needs no count for a figure priced at 0 or not priced', () => {
    expect(roundCost('c', price({ inputPerMillion: 0, perRequest: 0.5 }), paidUsage({})).amount).toBe(0.5);
  });

  it('is 0 for a round that paid for nothing', () => {
    expect(roundCost('c', price({ inputPerMillion: 3, perRequest: 1 }), NOTHING_PAID).amount).toBe(0);
  });
});

describe('what a failed round paid for', () => {
  it('is the usage of the paid answers the driver attached, each paid request once', () => {
    const error = new EngineRateLimited('429 after one answered Question');
    error.usage = { input_tokens: 100, output_tokens: 1, requests: 1 };
    expect(paidForFailure(error)).toEqual({ kind: 'paid', inputTokens: 100, outputTokens: 1, requests: 1 });
  });

  it('is one answer without counts for a malformed response that reported none', () => {
    const paid = paidForFailure(new MalformedEngineResponse('bad'));
    expect(paid).toEqual({ kind: 'paid', inputTokens: null, outputTokens: null, requests: 1 });
    expect(roundCost('c', price({ perRequest: 0.25 }), paid).amount).toBe(0.25);
    expect(roundCost('c', price({ inputPerMillion: 1 }), paid).amount).toBeNull();
  });

  it('is nothing for a refusal (429, 529, 4xx)', () => {
    for (const error of [new EngineRateLimited('429'), new EngineOverloaded('529'), new EngineRejectedRequest('400')]) {
      expect(paidForFailure(error)).toBe(NOTHING_PAID);
    }
  });

  it('is unknown for a failure that may have been billed (a timeout), so the cost is null with why', () => {
    const paid = paidForFailure(new EngineFailed('timed out after 10 s'));
    const cost = roundCost('c', price({ perRequest: 1 }), paid);
    expect(cost.amount).toBeNull();
    expect(cost.basis.note).toBe(
      'The round failed without an answer (EngineFailed): whether the provider billed it is unknown.',
    );
    expect(cost.basis.requests).toBeNull();
  });
});

describe('payments added together', () => {
  it('sum counts and requests; an unknown count or payment stays unknown', () => {
    const a = paidUsage({ input_tokens: 10, output_tokens: 2 });
    const b = paidUsage({ input_tokens: 5, output_tokens: 1, requests: 2 });
    expect(addPaid(a, b)).toEqual({ kind: 'paid', inputTokens: 15, outputTokens: 3, requests: 3 });
    expect(addPaid(a, paidUsage({ output_tokens: 1 }))).toMatchObject({ inputTokens: null, outputTokens: 3 });
    const unknown = paidForFailure(new EngineFailed('reset'));
    expect(addPaid(a, unknown)).toBe(unknown);
  });
});
