import fc from 'fast-check';
import { foldToken, letterShare, optionDistribution, type TokenLogprob } from './option-distribution';

const entry = (token: string, probability: number): TokenLogprob => ({ token, logprob: Math.log(probability) });

describe('reading option probabilities from top logprobs', () => {
  it('gives each option its share of the mass on the options, and records that mass as coverage', () => {
    // yes .6, no .2, "The" .1: coverage .8, P(yes) = .6 / .8 = .75.
    const read = optionDistribution([entry('yes', 0.6), entry('no', 0.2), entry('The', 0.1)], ['yes', 'no']);
    expect(read?.probabilities[0]).toBeCloseTo(0.75, 12);
    expect(read?.probabilities[1]).toBeCloseTo(0.25, 12);
    expect(read?.coverage).toBeCloseTo(0.8, 12);
    expect(read?.masses[0]).toBeCloseTo(0.6, 12);
  });

  it('folds spelling variants (leading space, tokenizer space markers, case, a trailing ")" or ".") into one option', () => {
    const entries = [
      entry('B', 0.4),
      entry(' B', 0.1),
      entry('b', 0.05),
      entry('ĠB', 0.05),
      entry('B)', 0.05),
      entry('A', 0.2),
      entry('▁a.', 0.05),
      entry('Based', 0.1),
    ];
    const read = optionDistribution(entries, ['A', 'B', 'C']);
    // A: .25, B: .65, C: 0 (not among the top tokens); coverage .9.
    expect(read?.probabilities.map((p) => Number(p.toFixed(9)))).toEqual([
      Number((0.25 / 0.9).toFixed(9)),
      Number((0.65 / 0.9).toFixed(9)),
      0,
    ]);
    expect(read?.coverage).toBeCloseTo(0.9, 12);
    expect(['Yes', ' yes', 'YES.', '▁yes', 'Ġyes', 'yes:'].map(foldToken)).toEqual(Array(6).fill('yes'));
    expect(foldToken('Based')).toBe('based');
  });

  it('counts a token listed twice once', () => {
    const read = optionDistribution([entry('yes', 0.5), entry('yes', 0.5), entry('no', 0.25)], ['yes', 'no']);
    expect(read?.coverage).toBeCloseTo(0.75, 12);
    expect(read?.probabilities[0]).toBeCloseTo(2 / 3, 12);
  });

  it('tells tokens that render alike apart by their ids, and counts an id listed twice once', () => {
    const special = (id: number, probability: number): TokenLogprob => ({
      id,
      token: '',
      logprob: Math.log(probability),
    });
    // Two distinct tokens spelled "yes" (ids 1 and 2) both count; id 1 listed again counts once; the two special
    // tokens rendered "" are two tokens, not one repeated. Told apart by text, yes would be 0.3; not deduplicated, 0.9.
    const entries = [
      { id: 1, ...entry('yes', 0.3) },
      { id: 2, ...entry('yes', 0.3) },
      special(32000, 0.2),
      special(32007, 0.1),
      { id: 1, ...entry('yes', 0.3) },
    ];
    const read = optionDistribution(entries, ['yes', 'no']);
    expect(read?.coverage).toBeCloseTo(0.6, 12);
  });

  it('word-letter check: the share of the first token off A and I that is on letters, null when A and I carry nothing', () => {
    const letters = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J'];
    // An answering model: the rest on other letters.
    expect(letterShare([entry('A', 0.5), entry('B', 0.3), entry('C', 0.1), entry('The', 0.05)], letters)).toBeCloseTo(
      0.4 / 0.45,
      12,
    );
    // A chatty one: "I" is option 9, and the rest is on words.
    expect(letterShare([entry('I', 0.74), entry('The', 0.25), entry('B', 0.001)], letters)).toBeCloseTo(
      0.001 / 0.251,
      12,
    );
    // "I" is not an option of a 3-letter Question: it is neither the answer nor the rest.
    expect(
      letterShare([entry('A', 0.5), entry('I', 0.3), entry('B', 0.1), entry('So', 0.1)], ['A', 'B', 'C']),
    ).toBeCloseTo(0.5, 12);
    expect(letterShare([entry('B', 0.9), entry('The', 0.1)], letters)).toBeNull();
    expect(letterShare([entry('A', 1)], letters)).toBe(0);
  });

  it('returns null when no mass fell on the options, and a tiny coverage when little did (the caller refuses it)', () => {
    expect(optionDistribution([entry('The', 0.7), entry('I', 0.2)], ['yes', 'no'])).toBeNull();
    expect(optionDistribution([], ['yes', 'no'])).toBeNull();
    const little = optionDistribution([entry('I', 0.9), entry('no', 0.01)], ['yes', 'no']);
    expect(little?.coverage).toBeCloseTo(0.01, 12);
    expect(little?.probabilities).toEqual([0, 1]);
  });

  it('applies temperature scaling to the option masses: T > 1 softens, T < 1 sharpens, T = 1 changes nothing', () => {
    const entries = [entry('yes', 0.64), entry('no', 0.16)];
    // Masses .64 and .16: at T = 2 they weigh .8 and .4, so P(yes) = 2/3; at T = .5, .4096 and .0256, so 16/17.
    expect(optionDistribution(entries, ['yes', 'no'], 2)?.probabilities[0]).toBeCloseTo(2 / 3, 12);
    expect(optionDistribution(entries, ['yes', 'no'], 0.5)?.probabilities[0]).toBeCloseTo(16 / 17, 12);
    expect(optionDistribution(entries, ['yes', 'no'], 1)?.probabilities[0]).toBeCloseTo(0.8, 12);
    // Coverage stays the raw mass.
    expect(optionDistribution(entries, ['yes', 'no'], 2)?.coverage).toBeCloseTo(0.8, 12);
  });

  it('does not underflow a sharp temperature on tiny masses', () => {
    const read = optionDistribution([entry('yes', 1e-30), entry('no', 1e-31)], ['yes', 'no'], 0.01);
    expect(read?.probabilities[0]).toBeCloseTo(1, 12);
  });

  it('always gives probabilities in [0, 1] summing to 1 over the options, and coverage in (0, 1]', () => {
    const tokens = ['A', ' A', 'a', 'B', ' b', 'C', 'c.', 'D', 'The', 'I', '\n', '**'];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ token: fc.constantFrom(...tokens), probability: fc.double({ min: 1e-12, max: 1, noNaN: true }) }),
          { minLength: 1, maxLength: 20 },
        ),
        fc.integer({ min: 2, max: 4 }),
        fc.option(fc.double({ min: 0.05, max: 20, noNaN: true }), { nil: null }),
        (listed, count, temperature) => {
          // A distribution's top entries sum to at most 1: scale the drawn ones down when they exceed it.
          const total = listed.reduce((sum, { probability }) => sum + probability, 0);
          const entries = listed.map(({ token, probability }) => entry(token, probability / Math.max(1, total)));
          const read = optionDistribution(entries, ['A', 'B', 'C', 'D'].slice(0, count), temperature);
          if (read === null) return;
          for (const p of read.probabilities) expect(p >= 0 && p <= 1).toBe(true);
          expect(read.probabilities.reduce((sum, p) => sum + p, 0)).toBeCloseTo(1, 9);
          expect(read.coverage > 0 && read.coverage <= 1).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
