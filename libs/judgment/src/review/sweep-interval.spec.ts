import { InvalidConfiguration } from '../errors';
import { sweepInterval } from './review-deadlines.service';

describe('the review deadline sweep interval', () => {
  it('defaults to every minute with the queue off and to none with the queue on', () => {
    expect(sweepInterval(undefined, false)).toBe(60_000);
    expect(sweepInterval(undefined, true)).toBeNull();
  });

  it('false turns it off; a duration sets it', () => {
    expect(sweepInterval(false, false)).toBeNull();
    expect(sweepInterval('30s', true)).toBe(30_000);
    expect(sweepInterval(5000, false)).toBe(5000);
  });

  it.each([
    ['often', /"often" cannot be parsed/],
    ['0s', /"0s" is outside 1 second to 24 hours/],
    [500, /500 is outside 1 second to 24 hours/],
  ])('refuses %p with InvalidConfiguration naming the option', (value, message) => {
    expect(() => sweepInterval(value, false)).toThrow(InvalidConfiguration);
    expect(() => sweepInterval(value, false)).toThrow(message);
    expect(() => sweepInterval(value, false)).toThrow(/JudgmentModule option review.sweepInterval is unusable/);
  });
});
