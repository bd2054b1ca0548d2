/**
 * Model-dependent noise around a known truth, for benchmarks and calibration tests: a case whose text carries
 * `[[truth=<answer>]]` is answered by a model with a noise profile as that model would, wrong now and then, instead
 * of from the hash. Pure functions, no I/O; deterministic for a given seed, model, case and question.
 *
 * The draw, for one model m, one case c and one question k:
 *   z_c, z_m ~ N(0, 1), independent, from seeded PRNGs (z_c from (seed, c, k); z_m from (seed, m, c, k))
 *   u        = Φ(ρ·z_c + √(1 − ρ²)·z_m)              (a Gaussian copula: ρ couples the models of one case)
 *   q        = F⁻¹_Beta(a, b)(u)                       (so q ~ Beta(a, b) for each model, whatever ρ)
 *   flipped  ~ Bernoulli(flip), from the model's own stream, independent of q
 * The model puts q on the true answer, or, when flipped, on one wrong answer drawn uniformly among the others; the
 * rest (1 − q) is shared evenly by the other answers, as a steering marker shares it.
 */
import type { NoiseProfile, SimulatorNoise } from './simulator.types';
import { fnv1a, mulberry32 } from '../fingerprint/seeded-random';

/** The part of jstat (which ships no types) the noise uses. */
interface JStat {
  /** The inverse in x of the regularized incomplete beta function I_x(a, b): the Beta(a, b) quantile. */
  ibetainv(p: number, a: number, b: number): number;
  normal: { cdf(x: number, mean: number, sd: number): number };
}
// Required with its type spelled here: an ambient declaration would not reach apps type-checking our sources.
const { jStat } = require('jstat') as { jStat: JStat };

/**
 * Two profiles for a cascade's benchmark: a cheap model, less sharp and more often confidently wrong, and a strong
 * one. `cheap`: q ~ Beta(4, 1) (mean 0.80), flip 3 %; `strong`: q ~ Beta(10, 1) (mean 0.91), flip 0.5 %.
 */
export const NOISE_PROFILES = {
  cheap: Object.freeze({ a: 4, b: 1, flip: 0.03 }),
  strong: Object.freeze({ a: 10, b: 1, flip: 0.005 }),
} as const satisfies Record<string, NoiseProfile>;

const TRUTH_MARKER = /\[\[\s*truth(?:\s*:\s*([^\]=]+?))?\s*=\s*([^\]]+?)\s*\]\]/g;
const CASE_MARKER = /\[\[\s*case\s*=\s*([^\]]+?)\s*\]\]/g;

/**
 * The truths written in a text: `[[truth=<answer>]]` for every question (key `''`), `[[truth:<question>=<answer>]]`
 * for one; the last marker of a key wins.
 */
export function parseTruths(text: string): ReadonlyMap<string, string> {
  const truths = new Map<string, string>();
  if (!text.includes('[[')) return truths;
  for (const [, question, answer] of text.matchAll(TRUTH_MARKER)) truths.set(question?.trim() ?? '', answer);
  return truths;
}

/** The case key of a text: its last `[[case=<id>]]` marker, else the whole text. */
export function caseKeyOf(text: string): string {
  let key: string | undefined;
  if (text.includes('[[')) for (const [, id] of text.matchAll(CASE_MARKER)) key = id;
  return key === undefined ? `text:${fnv1a(text)}` : `case:${key}`;
}

/** The noise of one answer: the share on the favoured answer, whether it is a wrong one, and which (a uniform). */
export interface NoiseDraw {
  /** q ~ Beta(a, b): the probability the model puts on the answer it favours. */
  readonly share: number;
  /** True when the model favours a wrong answer (probability `flip`). */
  readonly flipped: boolean;
  /** Uniform in [0, 1): picks the wrong answer when flipped. */
  readonly pick: number;
}

/** Throws when a profile cannot be drawn from, naming the model and the field. */
export function checkNoise(noise: SimulatorNoise): void {
  const correlation = noise.correlation ?? 0;
  if (!(correlation >= 0 && correlation < 1)) {
    throw new RangeError(`noise.correlation must be in [0, 1); got ${correlation}.`);
  }
  if (noise.seed !== undefined && !Number.isSafeInteger(noise.seed)) {
    throw new RangeError(`noise.seed must be a whole number; got ${noise.seed}.`);
  }
  for (const [model, profile] of Object.entries(noise.profiles)) {
    for (const field of ['a', 'b'] as const) {
      if (!(profile[field] > 0 && Number.isFinite(profile[field]))) {
        throw new RangeError(`noise.profiles["${model}"].${field} must be a finite number above 0 (Beta(a, b)).`);
      }
    }
    if (!(profile.flip >= 0 && profile.flip <= 1)) {
      throw new RangeError(`noise.profiles["${model}"].flip must be a share in [0, 1]; got ${profile.flip}.`);
    }
  }
}

/** A standard normal draw (Box–Muller) from a seeded stream. */
function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** The noise of model `model`'s answer to question `question` of case `caseKey` (see the file's comment). */
export function drawNoise(
  noise: SimulatorNoise,
  profile: NoiseProfile,
  model: string,
  caseKey: string,
  question: string,
): NoiseDraw {
  const seed = noise.seed ?? 0;
  const rho = noise.correlation ?? 0;
  const shared = mulberry32(fnv1a(`shared\u241e${caseKey}\u241e${question}`, fnv1a(String(seed))));
  const own = mulberry32(fnv1a(`${model}\u241e${caseKey}\u241e${question}`, fnv1a(String(seed))));
  const z = rho * normal(shared) + Math.sqrt(1 - rho * rho) * normal(own);
  const u = Math.min(1 - 1e-12, Math.max(1e-12, jStat.normal.cdf(z, 0, 1)));
  const share = jStat.ibetainv(u, profile.a, profile.b);
  return { share, flipped: own() < profile.flip, pick: own() };
}

/**
 * The steering a draw gives among `answers` (the names the mode's steering understands, the true one at
 * `truthIndex`): q on the true answer, or on a wrong one picked uniformly when flipped.
 */
export function noisyTarget(
  draw: NoiseDraw,
  answers: readonly string[],
  truthIndex: number,
): { p: number; target: string } {
  if (!draw.flipped || answers.length < 2) return { p: draw.share, target: answers[truthIndex] };
  const wrong = answers.filter((_, index) => index !== truthIndex);
  return { p: draw.share, target: wrong[Math.min(wrong.length - 1, Math.floor(draw.pick * wrong.length))] };
}

/** Index of a yes/no truth (`true`, `yes`, `1` → 0; `false`, `no`, `0` → 1), or −1. */
export function yesNoIndex(truth: string): number {
  const said = truth.trim().toLowerCase();
  if (['true', 'yes', '1'].includes(said)) return 0;
  if (['false', 'no', '0'].includes(said)) return 1;
  return -1;
}
