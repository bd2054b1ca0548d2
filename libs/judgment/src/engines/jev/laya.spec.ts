import { JevSimulator } from 'nestjs-judgment/simulator';
import { EngineFailed, EngineRejectedRequest } from '../../errors';
import { Classification, Likelihood, Rating, type Question } from '../../questions';
import type { EngineRequest } from '../engine.interface';
import { JevEngine } from './jev.engine';

const simulator = new JevSimulator({ mode: 'laya' });
let laya: JevEngine;

beforeAll(async () => {
  const url = await simulator.start(0);
  laya = JevEngine.connect('laya', { url, model: 'multilingual', requireKey: false, maxLabels: 20 });
});
afterAll(() => simulator.stop());
beforeEach(() => simulator.clearFaults().clearLog());

const ask = (questions: Array<[string, Question]>): EngineRequest => ({
  questions: new Map(questions),
  evidence: { message: 'I was charged twice this month, I want my money back' },
});

const everyKind = ask([
  ['refund', Likelihood.that('Does the customer ask for a refund?')],
  ['queue', Classification.of('Which team should handle this?', ['billing', 'tech', 'other'])],
  ['severity', Rating.of('How badly is the customer affected?', ['Cosmetic', 'Annoying', 'Blocking'])],
]);

describe('Jev driver against Laya', () => {
  it('records the checkpoint Laya routed to, and no request id', async () => {
    const { provenance } = await laya.answer(everyKind);
    expect(provenance.engine).toBe('laya');
    expect(provenance.model).toBe('multilingual');
    expect(provenance.requestId).toBeNull();
    expect(simulator.requests[0].headers.authorization).toBeUndefined();
  });

  it("reads Laya's 4-decimal answers, ignoring its extra fields and keeping its confidence for audit", async () => {
    const { answers, provenance } = await laya.answer(everyKind);
    expect(String(answers.refund)).toMatch(/^\d\.\d{1,4}$/);
    expect(answers.queue).toEqual({ billing: expect.any(Number), tech: expect.any(Number), other: expect.any(Number) });
    expect(answers.severity).toEqual([expect.any(Number), expect.any(Number), expect.any(Number)]);
    const confidence = provenance.details.confidence as Record<string, number>;
    expect(Object.keys(confidence)).toEqual(['refund', 'queue', 'severity']);
    // The extra fields stay in the raw response; what was read out of it (probabilities, confidence) is not repeated.
    const raw = (provenance.details.response as { answers: Record<string, Record<string, unknown>> }).answers;
    expect(raw.refund).toMatchObject({ type: 'noul', answer_confidence: expect.any(Number) });
    expect(raw.refund).not.toHaveProperty('noul');
    expect(raw.queue).toMatchObject({ type: 'choice', x_jev_confidence: expect.any(Number) });
    expect(raw.queue).not.toHaveProperty('probabilities');
    expect(Object.values(raw).filter((answer) => 'confidence' in answer)).toEqual([]);
  });

  it("fails Laya's 503 (server busy) with EngineFailed, without retrying it", async () => {
    simulator.fail({ status: 503 });
    const error = await laya.answer(everyKind).catch((thrown: unknown) => thrown);
    expect((error as Error).constructor).toBe(EngineFailed);
    expect((error as Error).message).toBe(
      'The Engine failed (HTTP 503, connection "laya"): server busy, try again later.',
    );
    expect(simulator.requests).toHaveLength(1);
  });

  it('refuses a Classification over the connection maxLabels before asking', async () => {
    const labels = Array.from({ length: 21 }, (_, index) => `label-${index}`);
    const error = await laya
      .answer(ask([['topic', Classification.of('Which topic?', labels)]]))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineRejectedRequest);
    expect((error as Error).message).toContain(
      '"laya" answers Classifications of at most 20 options, but "topic" offers 21',
    );
    expect(simulator.requests).toHaveLength(0);
  });

  it("maps Laya's own label-budget refusal (422 with a detail string) to EngineRejectedRequest", async () => {
    const labels = Array.from({ length: 25 }, (_, index) => `label-${index}`);
    const roomy = JevEngine.connect('laya', {
      url: simulator.url,
      model: 'english',
      requireKey: false,
      maxLabels: null,
    });
    const error = await roomy
      .answer(ask([['topic', Classification.of('Which topic?', labels)]]))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineRejectedRequest);
    expect((error as Error).message).toContain(
      '(HTTP 422, connection "laya"): question \'topic\' options exceed head_max_len',
    );
  });
});
