import { Provenance } from '../assessment/provenance';
import { fitTemperature, fitTemperatures, type TemperatureSample } from './temperature-fit';

/** A small deterministic generator of uniform numbers in [0, 1). */
function uniform(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * Answers of a model over-confident by `sharpness`: the truth is drawn with probability q, but the model puts masses
 * q^sharpness and (1 − q)^sharpness on yes and no, so a temperature of `sharpness` undoes it.
 */
function overConfident(count: number, sharpness: number): TemperatureSample[] {
  const next = uniform(7);
  return Array.from({ length: count }, () => {
    const q = 0.02 + 0.96 * next();
    return { yes: q ** sharpness, no: (1 - q) ** sharpness, truth: next() < q };
  });
}

describe('fitting a temperature to labelled Likelihood answers', () => {
  it('recovers the temperature that undoes an over-confident model, and lowers ECE and NLL', () => {
    const fit = fitTemperature(overConfident(4000, 2));
    expect(fit?.temperature).toBeGreaterThan(1.8);
    expect(fit?.temperature).toBeLessThan(2.2);
    expect(fit?.cases).toBe(4000);
    expect(fit!.eceAfter).toBeLessThan(fit!.eceBefore);
    expect(fit!.nllAfter).toBeLessThan(fit!.nllBefore);
  });

  it('finds a temperature near 1 for a calibrated model, and below 1 for an under-confident one', () => {
    expect(fitTemperature(overConfident(4000, 1))?.temperature).toBeCloseTo(1, 0);
    expect(fitTemperature(overConfident(4000, 0.5))?.temperature).toBeLessThan(0.6);
  });

  it('has nothing to fit without samples', () => {
    expect(fitTemperature([])).toBeNull();
    expect(fitTemperature([{ yes: 0, no: 0, truth: true }])).toBeNull();
  });

  it('fits one temperature per connection and model from the masses the Provenance recorded', () => {
    const recorded = (engine: string, yes: number, truth: boolean) => ({
      provenance: new Provenance(engine, 'gpt-sim-2026-01-01', null, { masses: { flagged: [yes, 1 - yes] } }),
      truth: { flagged: truth },
    });
    const fits = fitTemperatures([
      recorded('openai', 0.9, true),
      recorded('openai', 0.8, false),
      recorded('vllm', 0.3, false),
      recorded('vllm', 0.6, true),
      // A driver without masses (Jev) takes no part.
      { provenance: new Provenance('jev', 'jev-1.13.0', null, {}), truth: { flagged: true } },
    ]);
    expect(fits.map(({ connection, model, cases }) => [connection, model, cases])).toEqual([
      ['openai', 'gpt-sim-2026-01-01', 2],
      ['vllm', 'gpt-sim-2026-01-01', 2],
    ]);
  });
});
