import { caseKeyOf, checkNoise, drawNoise, NOISE_PROFILES, noisyTarget, parseTruths } from './answer-noise';
import { startJevSimulator } from './start-jev-simulator';
import { startOpenAiSimulator } from './openai-simulator';
import type { NoiseProfile, SimulatorNoise } from './simulator.types';

const DRAWS = 20_000;

/** Mean and variance of `values`. */
function moments(values: readonly number[]): { mean: number; variance: number } {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
  return { mean, variance };
}

/** Pearson's correlation of two equally long series. */
function correlation(x: readonly number[], y: readonly number[]): number {
  const mx = moments(x).mean;
  const my = moments(y).mean;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

const betaMean = ({ a, b }: NoiseProfile) => a / (a + b);
const betaVariance = ({ a, b }: NoiseProfile) => (a * b) / ((a + b) ** 2 * (a + b + 1));
const draws = (noise: SimulatorNoise, model: string, count = DRAWS) =>
  Array.from({ length: count }, (_, index) => drawNoise(noise, noise.profiles[model], model, `case:${index}`, 'fraud'));

describe('answer noise around a known truth', () => {
  const noise: SimulatorNoise = { profiles: { ...NOISE_PROFILES, wide: { a: 0.7, b: 0.9, flip: 0.25 } }, seed: 11 };

  it.each(['cheap', 'strong', 'wide'])(
    `draws the %s profile's share from Beta(a, b) and flips at its rate (${DRAWS} draws)`,
    (model) => {
      const profile = noise.profiles[model];
      const sample = draws(noise, model);
      const { mean, variance } = moments(sample.map((draw) => draw.share));
      // Four standard errors of the mean; the variance within 6 % of Beta's.
      expect(Math.abs(mean - betaMean(profile))).toBeLessThan(4 * Math.sqrt(betaVariance(profile) / DRAWS));
      expect(variance / betaVariance(profile)).toBeGreaterThan(0.94);
      expect(variance / betaVariance(profile)).toBeLessThan(1.06);
      const flips = sample.filter((draw) => draw.flipped).length / DRAWS;
      expect(Math.abs(flips - profile.flip)).toBeLessThan(
        4 * Math.sqrt((profile.flip * (1 - profile.flip)) / DRAWS) + 1e-9,
      );
      for (const draw of sample) expect(draw.share).toBeGreaterThanOrEqual(0);
    },
  );

  it('is deterministic for a seed, model, case and question, and changes with each of them', () => {
    const draw = (seed: number, model = 'cheap', caseKey = 'case:7', question = 'fraud') =>
      drawNoise({ ...noise, seed }, NOISE_PROFILES.cheap, model, caseKey, question);
    expect(draw(11)).toEqual(draw(11));
    expect(draw(12).share).not.toBe(draw(11).share);
    expect(draw(11, 'strong').share).not.toBe(draw(11).share);
    expect(draw(11, 'cheap', 'case:8').share).not.toBe(draw(11).share);
    expect(draw(11, 'cheap', 'case:7', 'other').share).not.toBe(draw(11).share);
  });

  it('couples two models of one case by the correlation asked, keeping each Beta', () => {
    const coupled = { ...noise, correlation: 0.8 };
    const cheap = draws(coupled, 'cheap', 5_000).map((draw) => draw.share);
    const strong = draws(coupled, 'strong', 5_000).map((draw) => draw.share);
    expect(correlation(cheap, strong)).toBeGreaterThan(0.6);
    expect(Math.abs(moments(strong).mean - betaMean(NOISE_PROFILES.strong))).toBeLessThan(0.005);
    const apart = draws(noise, 'cheap', 5_000).map((draw) => draw.share);
    const other = draws(noise, 'strong', 5_000).map((draw) => draw.share);
    expect(Math.abs(correlation(apart, other))).toBeLessThan(0.06);
  });

  it('puts the share on the truth, or on a wrong answer picked uniformly when flipped', () => {
    expect(noisyTarget({ share: 0.8, flipped: false, pick: 0.9 }, ['a', 'b', 'c'], 1)).toEqual({ p: 0.8, target: 'b' });
    expect(noisyTarget({ share: 0.8, flipped: true, pick: 0.1 }, ['a', 'b', 'c'], 1)).toEqual({ p: 0.8, target: 'a' });
    expect(noisyTarget({ share: 0.8, flipped: true, pick: 0.9 }, ['a', 'b', 'c'], 1)).toEqual({ p: 0.8, target: 'c' });
  });

  it('reads truths and the case key from markers', () => {
    expect([...parseTruths('x [[truth=yes]] [[truth:team=billing]] [[truth = no]]')]).toEqual([
      ['', 'no'],
      ['team', 'billing'],
    ]);
    expect(parseTruths('[[fraud=0.9]]').size).toBe(0);
    expect(caseKeyOf('claim [[case=c17]] [[truth=yes]]')).toBe('case:c17');
    expect(caseKeyOf('claim 17')).toBe(caseKeyOf('claim 17'));
    expect(caseKeyOf('claim 17')).not.toBe(caseKeyOf('claim 18'));
  });

  it('refuses a profile it cannot draw from, naming the model and the field', () => {
    expect(() => checkNoise({ profiles: { mini: { a: 0, b: 1, flip: 0 } } })).toThrow('noise.profiles["mini"].a');
    expect(() => checkNoise({ profiles: { mini: { a: 1, b: 1, flip: 1.5 } } })).toThrow('noise.profiles["mini"].flip');
    expect(() => checkNoise({ profiles: {}, correlation: 1 })).toThrow('noise.correlation');
    expect(() => checkNoise({ profiles: {}, seed: 0.5 })).toThrow('noise.seed');
  });
});

describe('answer noise over HTTP', () => {
  const CASES = 400;
  const noise: SimulatorNoise = { profiles: { 'jev-cheap': NOISE_PROFILES.cheap, 'sim-mini': NOISE_PROFILES.cheap } };
  // E[P(true) | truth true] = (1 − flip)·E[q] + flip·(1 − E[q]); Var from the mixture.
  const { a, b, flip } = NOISE_PROFILES.cheap;
  const mu = a / (a + b);
  const expected = (1 - flip) * mu + flip * (1 - mu);
  const spread = Math.sqrt(betaVariance(NOISE_PROFILES.cheap) + flip * (1 - flip) * (2 * mu - 1) ** 2);
  const tolerance = 4 * (spread / Math.sqrt(CASES)) + 0.005; // four standard errors, and the 2-decimal rounding

  const jevBody = (model: string, text: string) => ({
    model,
    state: text,
    questions: {
      fraud: { type: 'noul', instructions: 'Is this claim fraudulent?' },
      team: { type: 'choice', instructions: 'Which team?', criteria: { billing: null, technical: null, sales: null } },
    },
  });
  const postJev = async (url: string, model: string, text: string) => {
    const response = await fetch(`${url}/v1/systemone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(jevBody(model, text)),
    });
    return (await response.json()) as { model: string; answers: Record<string, any> };
  };

  it('Jev mode: a model with a profile answers around the truth, by its profile; others as before', async () => {
    const sim = await startJevSimulator({ noise, logRequests: false });
    const plain = await startJevSimulator({ logRequests: false });
    try {
      const yes: number[] = [];
      let teamRight = 0;
      for (let index = 0; index < CASES; index++) {
        const text = `Claim ${index} [[truth:fraud=true]] [[truth:team=sales]]`;
        const { model, answers } = await postJev(sim.url, 'jev-cheap', text);
        expect(model).toBe('jev-cheap');
        yes.push(answers.fraud.noul);
        if (answers.team.choice === 'sales') teamRight++;
        if (index < 20) {
          // The simulator's own model has no profile: the hash answers, as on a simulator without noise.
          expect((await postJev(sim.url, 'jev-1.13.0', text)).answers).toEqual(
            (await postJev(plain.url, 'jev-1.13.0', text)).answers,
          );
        }
      }
      expect(Math.abs(moments(yes).mean - expected)).toBeLessThan(tolerance);
      // The truth leads unless flipped or q < 1/3 (P(q < 1/3) = (1/3)^4 for Beta(4, 1)).
      const right = (1 - flip) * (1 - (1 / 3) ** a);
      expect(Math.abs(teamRight / CASES - right)).toBeLessThan(4 * Math.sqrt((right * (1 - right)) / CASES));
      // Deterministic: the same case, the same answer.
      expect(await postJev(sim.url, 'jev-cheap', 'Claim 3 [[truth=true]]')).toEqual(
        await postJev(sim.url, 'jev-cheap', 'Claim 3 [[truth=true]]'),
      );
    } finally {
      await sim.stop();
      await plain.stop();
    }
  });

  it('OpenAI mode: the profile model is accepted and answers around the truth; the own model as before', async () => {
    const sim = await startOpenAiSimulator({ noise, logRequests: false });
    const plain = await startOpenAiSimulator({ logRequests: false });
    const ask = async (url: string, model: string, text: string) => {
      const response = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model,
          messages: [{ role: 'user', content: `Evidence: ${text}\n\nQuestion "fraud": Is it fraudulent?` }],
          max_tokens: 1,
          logprobs: true,
          top_logprobs: 20,
        }),
      });
      const body = (await response.json()) as Record<string, any>;
      const top = body.choices[0].logprobs.content[0].top_logprobs as Array<{ token: string; logprob: number }>;
      const mass = (word: string) =>
        top.filter(({ token }) => token.trim().toLowerCase() === word).reduce((sum, t) => sum + Math.exp(t.logprob), 0);
      return { model: body.model as string, yes: mass('yes') / (mass('yes') + mass('no')), top };
    };
    try {
      const yes: number[] = [];
      for (let index = 0; index < CASES; index++) {
        const text = `Claim ${index} [[truth=no]]`;
        const answer = await ask(sim.url, 'sim-mini', text);
        expect(answer.model).toBe('sim-mini');
        yes.push(answer.yes);
        if (index < 20)
          expect((await ask(sim.url, 'sim-4o', text)).top).toEqual((await ask(plain.url, 'sim-4o', text)).top);
      }
      // The truth is no: P(yes) is the mirror of the Jev case above.
      expect(Math.abs(moments(yes).mean - (1 - expected))).toBeLessThan(tolerance);
      const unknown = await fetch(`${plain.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim-mini', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(unknown.status).toBe(404);
    } finally {
      await sim.stop();
      await plain.stop();
    }
  });

  it('the same case key gives the same draw in both modes, so a correlation couples them', async () => {
    const coupled: SimulatorNoise = { ...noise, correlation: 0.9 };
    expect(drawNoise(coupled, NOISE_PROFILES.cheap, 'm', caseKeyOf('Jev state [[case=c1]]'), 'fraud')).toEqual(
      drawNoise(coupled, NOISE_PROFILES.cheap, 'm', caseKeyOf('an OpenAI prompt around it [[case=c1]]'), 'fraud'),
    );
  });

  it('refuses noise in laya mode', async () => {
    await expect(startJevSimulator({ mode: 'laya', noise })).rejects.toThrow('jev mode only');
  });
});
