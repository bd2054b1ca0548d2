import { EngineManager } from '../engines/engine.manager';
import { resolveJudgmentOptions } from '../judgment.options';
import { expectedDuration } from './eval.command';

const engines = (limits?: object) =>
  new EngineManager(
    resolveJudgmentOptions({
      environment: 'test',
      engines: { jev: { driver: 'mock', model: 'mock-1.0.0', limits }, laya: { driver: 'mock', model: 'mock-1.0.0' } },
    }),
  );

describe('judgment eval: the expected duration at the limit', () => {
  it('counts the rounds at the connection’s bulk share of its request limit', () => {
    expect(expectedDuration(engines({ requestsPerMinute: 600 }), new Map([['jev', 500]]))).toBe(
      'Expected duration at the rate limits: about 100 s (500 rounds on "jev" at 300/min (its bulk share of 600/min)).',
    );
    expect(expectedDuration(engines({ requestsPerMinute: 120 }), new Map([['jev', 1000]]))).toContain(
      'about 16 min 40 s',
    );
  });

  it('says nothing when no connection asked has a request limit', () => {
    expect(expectedDuration(engines(), new Map([['jev', 500]]))).toBeNull();
    expect(expectedDuration(engines({ requestsPerMinute: 600 }), new Map([['laya', 500]]))).toBeNull();
  });
});
