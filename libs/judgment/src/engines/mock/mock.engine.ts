import { createHash } from 'node:crypto';
import { Provenance } from '../../assessment/provenance';
import type { Question } from '../../questions/question';
import type { Engine, EngineAnswer, EngineRequest, EngineResponse } from '../engine.interface';

/** The model a mock connection reports when it sets none. */
export const DEFAULT_MOCK_MODEL = 'mock-1.0.0';

/**
 * The `mock` driver, for demos and tests: no network; each answer is derived from a hash of the Question (its text
 * and options) and the Evidence, so the same request always gets the same answers. Usage is estimated at about
 * four characters per input token.
 */
export class MockEngine implements Engine {
  constructor(private readonly configuredModel: string = DEFAULT_MOCK_MODEL) {}

  model(): string {
    return this.configuredModel;
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    const evidence = JSON.stringify(request.evidence ?? {});
    const answers: Array<[string, EngineAnswer]> = [];
    let characters = evidence.length;
    for (const [key, question] of request.questions) {
      const asked = JSON.stringify([question.kind, question.text, optionsOf(question)]);
      characters += key.length + asked.length;
      answers.push([key, answerFrom(question, draws(`${asked}\n${evidence}`))]);
    }
    const usage = { input_tokens: Math.ceil(characters / 4), output_tokens: 0 };
    return {
      answers: Object.fromEntries(answers),
      provenance: new Provenance('mock', this.configuredModel, null, { usage, confidence: {}, response: null }),
    };
  }
}

function optionsOf(question: Question): readonly string[] {
  if (question.kind === 'classification') return question.options();
  return question.kind === 'rating' ? question.levels : [];
}

function answerFrom(question: Question, draw: () => number): EngineAnswer {
  if (question.kind === 'likelihood') return round(draw());
  const weights = optionsOf(question).map(() => draw() ** 3);
  const total = weights.reduce((sum, weight) => sum + weight, 0) || 1;
  const probabilities = inHundredths(weights.map((weight) => weight / total));
  if (question.kind === 'rating') return probabilities;
  return Object.fromEntries(question.options().map((option, index) => [option, probabilities[index]]));
}

/** Deterministic numbers in [0, 1) drawn from the SHA-256 of `seed`, 4 bytes at a time (the digest is rehashed as needed). */
function draws(seed: string): () => number {
  let digest = createHash('sha256').update(seed).digest();
  let offset = 0;
  return () => {
    if (offset + 4 > digest.length) {
      digest = createHash('sha256').update(digest).digest();
      offset = 0;
    }
    const value = digest.readUInt32BE(offset) / 2 ** 32;
    offset += 4;
    return value;
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** A distribution rounded to hundredths that still sums to exactly 1 (largest remainders get the spare hundredths). */
function inHundredths(shares: readonly number[]): number[] {
  const scaled = shares.map((share) => share * 100);
  const units = scaled.map(Math.floor);
  const spare = 100 - units.reduce((sum, unit) => sum + unit, 0);
  const byRemainder = scaled.map((value, index) => ({ index, remainder: value - units[index] }));
  byRemainder.sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of byRemainder.slice(0, spare)) units[index] += 1;
  return units.map((unit) => unit / 100);
}
