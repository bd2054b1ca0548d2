import { QueryFailedError } from 'typeorm';
import { AssessmentNotRecorded, EngineFailed } from '../errors';
import { isOutage, outageWait } from './outage';

const withCode = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('what counts as an outage of PostgreSQL or Redis', () => {
  it('network errors and an away or restarting PostgreSQL, on the error or its causes', () => {
    expect(isOutage(withCode('ECONNREFUSED'))).toBe(true);
    expect(isOutage(new QueryFailedError('SELECT 1', [], withCode('57P01', 'terminating connection')))).toBe(true);
    expect(
      isOutage(new QueryFailedError('SELECT 1', [], withCode('57P03', 'the database system is starting up'))),
    ).toBe(true);
    expect(isOutage(new AssessmentNotRecorded('not recorded', {}, { cause: withCode('ECONNRESET') }))).toBe(true);
    expect(isOutage(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isOutage({ code: 'ECONNREFUSED', message: 'from another realm' })).toBe(true);
  });

  it('not an Engine failure, a constraint violation, or a plain bug', () => {
    expect(isOutage(new EngineFailed('The Engine could not be reached', { cause: withCode('ECONNREFUSED') }))).toBe(
      false,
    );
    expect(isOutage(new QueryFailedError('INSERT', [], withCode('23505', 'duplicate key')))).toBe(false);
    expect(isOutage(new TypeError('x is undefined'))).toBe(false);
    expect(isOutage(null)).toBe(false);
  });

  it('waits double from the delay, capped', () => {
    const policy = { retryFor: 60_000, delay: 1000, maxDelay: 30_000 };
    expect([1, 2, 3, 5, 6, 40].map((retry) => outageWait(policy, retry))).toEqual([
      1000, 2000, 4000, 16_000, 30_000, 30_000,
    ]);
  });
});
