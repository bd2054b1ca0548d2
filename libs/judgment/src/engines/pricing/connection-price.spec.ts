import { InvalidPrice } from '../../errors';
import { connectionPrice } from './connection-price';

const refusal = (price: unknown): string => {
  try {
    connectionPrice('cheap', { price } as never);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPrice);
    return (error as Error).message;
  }
  throw new Error('expected InvalidPrice');
};

describe('a connection price', () => {
  it('is none when the connection declares none', () => {
    expect(connectionPrice('jev', {})).toBeNull();
    expect(connectionPrice('jev', { price: null })).toBeNull();
  });

  it('keeps each figure given, null for those left out, and USD unless a currency is named', () => {
    expect(connectionPrice('jev', { price: { inputPerMillion: 0.15, outputPerMillion: 0.6 } })).toEqual({
      inputPerMillion: 0.15,
      outputPerMillion: 0.6,
      perRequest: null,
      currency: 'USD',
    });
    expect(connectionPrice('jev', { price: { perRequest: 0.002, currency: 'EUR' } })).toEqual({
      inputPerMillion: null,
      outputPerMillion: null,
      perRequest: 0.002,
      currency: 'EUR',
    });
    expect(connectionPrice('jev', { price: { inputPerMillion: 0 } })?.inputPerMillion).toBe(0);
  });

  it('reads plain decimal strings, as configuration services deliver them', () => {
    expect(connectionPrice('jev', { price: { inputPerMillion: '2.5' as never } })?.inputPerMillion).toBe(2.5);
  });

  it('refuses a negative figure, naming the connection and the field', () => {
    const message = refusal({ inputPerMillion: -1 });
    expect(message).toContain('"cheap"');
    expect(message).toContain('engines.cheap.price.inputPerMillion is -1');
    expect(message).toContain('1,000,000 input tokens');
  });

  it('refuses NaN, Infinity and non-numbers', () => {
    expect(refusal({ outputPerMillion: NaN })).toContain('engines.cheap.price.outputPerMillion is NaN;');
    expect(refusal({ perRequest: Infinity })).toMatch(/price\.perRequest is Infinity; .*one paid request/);
    expect(refusal({ perRequest: '1e-3' })).toContain('engines.cheap.price.perRequest is "1e-3";');
    expect(refusal({ inputPerMillion: true })).toContain('engines.cheap.price.inputPerMillion is true;');
  });

  it('refuses an unknown field, naming it and the fields a price has', () => {
    const message = refusal({ inputPerMillion: 1, perToken: 0.1 });
    expect(message).toContain('engines.cheap.price.perToken');
    expect(message).toContain('inputPerMillion, outputPerMillion, perRequest and currency');
  });

  it('refuses a price that is not an object, or has no figure', () => {
    expect(refusal(3)).toMatch(/"cheap" has an invalid price: engines\.cheap\.price is 3; set it to an object/);
    expect(refusal([1])).toContain('engines.cheap.price is an array;');
    expect(refusal({ currency: 'USD' })).toMatch(/price without a figure.*engines\.cheap\.price\.inputPerMillion/);
  });

  it('refuses a currency that is not a short code', () => {
    expect(refusal({ perRequest: 1, currency: '' })).toContain('engines.cheap.price.currency is "";');
    expect(refusal({ perRequest: 1, currency: 'US dollars' })).toContain('price.currency is "US dollars";');
    expect(refusal({ perRequest: 1, currency: 840 })).toContain('price.currency is 840;');
  });
});
