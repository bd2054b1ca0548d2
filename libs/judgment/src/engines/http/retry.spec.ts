import { retryWait } from './retry';

describe('retry wait', () => {
  const now = Date.parse('2026-10-01T12:00:00Z');

  it('prefers retry-after-ms over retry-after', () => {
    expect(retryWait({ 'retry-after-ms': '250', 'retry-after': '1' }, 1, now)).toBe(250);
  });

  it('reads retry-after as seconds, fractions included', () => {
    expect(retryWait({ 'retry-after': '3' }, 1, now)).toBe(3000);
    expect(retryWait({ 'retry-after': '0.5' }, 1, now)).toBe(500);
  });

  it('reads retry-after as an HTTP date', () => {
    expect(retryWait({ 'retry-after': new Date(now + 5000).toUTCString() }, 1, now)).toBe(5000);
  });

  it('falls back to 500 · 2^(n − 1) ms without usable headers', () => {
    expect([1, 2, 3, 4].map((retry) => retryWait({}, retry, now))).toEqual([500, 1000, 2000, 4000]);
    expect(retryWait({ 'retry-after-ms': 'soon', 'retry-after': 'later' }, 2, now)).toBe(1000);
  });

  it('clamps every wait to 0..60 000 ms', () => {
    expect(retryWait({ 'retry-after': '600' }, 1, now)).toBe(60_000);
    expect(retryWait({ 'retry-after': '-3' }, 1, now)).toBe(0);
    expect(retryWait({ 'retry-after': new Date(now - 5000).toUTCString() }, 1, now)).toBe(0);
    expect(retryWait({}, 20, now)).toBe(60_000);
  });
});
