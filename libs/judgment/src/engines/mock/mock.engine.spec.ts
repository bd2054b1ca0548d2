import { Evidence } from '../../definition/evidence';
import { Classification, Likelihood, Rating, type Question } from '../../questions';
import type { EngineRequest } from '../engine.interface';
import { EngineManager } from '../engine.manager';
import { resolveJudgmentOptions } from '../../judgment.options';
import { MockEngine } from './mock.engine';

const ask = (text: string): EngineRequest => ({
  questions: new Map<string, Question>([
    ['abusive', Likelihood.that('Is this refund request abusive?')],
    ['team', Classification.of('Which team?', ['billing', 'tech']).orNone()],
    ['severity', Rating.of('How severe?', ['low', 'medium', 'high', 'critical'])],
  ]),
  evidence: { request: { explanation: Evidence.untrusted(text) } },
});

describe('mock driver', () => {
  it('answers deterministically from the Question and the Evidence', async () => {
    const first = await new MockEngine().answer(ask('The parcel never arrived.'));
    const again = await new MockEngine().answer(ask('The parcel never arrived.'));
    const other = await new MockEngine().answer(ask('The parcel arrived broken.'));
    expect(again.answers).toEqual(first.answers);
    expect(other.answers).not.toEqual(first.answers);
  });

  it('answers each kind in its shape: a probability, a probability per option, a probability per level', async () => {
    const { answers } = await new MockEngine().answer(ask('Where is my refund?'));
    expect(answers.abusive).toBeGreaterThanOrEqual(0);
    expect(answers.abusive).toBeLessThanOrEqual(1);
    expect(Object.keys(answers.team)).toEqual(['billing', 'tech', 'none']);
    expect(answers.severity).toHaveLength(4);
    for (const distribution of [Object.values(answers.team), answers.severity as number[]]) {
      expect(distribution.reduce((sum, p) => sum + p, 0)).toBeCloseTo(1, 9);
    }
  });

  it('reports engine "mock", its model and an input-token estimate that grows with the request', async () => {
    const short = await new MockEngine().answer(ask('Hi.'));
    const long = await new MockEngine('mock-2.0.0').answer(ask('Hi. '.repeat(200)));
    expect(short.provenance).toMatchObject({ engine: 'mock', model: 'mock-1.0.0', requestId: null });
    expect(long.provenance.model).toBe('mock-2.0.0');
    const tokens = (answer: typeof short) => (answer.provenance.details.usage as { input_tokens: number }).input_tokens;
    expect(tokens(short)).toBeGreaterThan(0);
    expect(tokens(long) - tokens(short)).toBeGreaterThanOrEqual(190);
  });

  it('is a built-in driver that needs no key and no network', async () => {
    const engines = new EngineManager(
      resolveJudgmentOptions({ engine: 'demo', engines: { demo: { driver: 'mock', model: 'mock-1.2.0' } } }),
    );
    const { provenance } = await engines.connection().answer(ask('Hi.'));
    expect(provenance.model).toBe('mock-1.2.0');
    expect(engines.usage('demo')).toBeGreaterThan(0);
  });
});
