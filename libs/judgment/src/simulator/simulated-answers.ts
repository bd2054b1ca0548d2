/**
 * Deterministic answer engine: probabilities derived from a hash of (instructions + criteria + state),
 * optionally steered by `[[...]]` markers inside the state. Pure functions, no I/O.
 */

import { fnv1a, mulberry32 } from '../fingerprint/seeded-random';
import { caseKeyOf, drawNoise, noisyTarget, parseTruths, yesNoIndex } from './answer-noise';
import type { NoiseProfile, SimulatorNoise } from './simulator.types';

export type QuestionType = 'noul' | 'choice' | 'score';

/** A validated question, normalised for both dialects. */
export interface NormalQuestion {
  id: string;
  type: QuestionType;
  instructions: unknown;
  criteria: unknown;
  /** Choice labels (insertion order) or score level keys `"0".."n-1"`; empty for noul. */
  labels: string[];
  /** Score level texts (legend); empty otherwise. */
  levels: unknown[];
}

/** A steering instruction: put mass `p` on `target` (a choice label / score level / `true` / `false`), or on the default outcome. */
export interface SteerTarget {
  p: number;
  target?: string;
}

/**
 * Parsed markers, keyed as written before `=`: `p` (every question), `<type>:p` (every question of a type),
 * `<questionId>`, or `<type>:<questionId>`.
 */
export type Steering = Map<string, SteerTarget>;

const MARKER = /\[\[\s*([^\]=]+?)\s*=\s*([^\]]+?)\s*\]\]/g;
const TYPE_PREFIX = /^(noul|choice|score):(.+)$/;

/** Parse every `[[key=value]]` marker of `text`; later markers override earlier ones. Invalid ones are ignored. */
export function parseSteering(text: string): Steering {
  const steering: Steering = new Map();
  if (!text.includes('[[')) return steering;
  for (const m of text.matchAll(MARKER)) {
    const prefixed = TYPE_PREFIX.exec(m[1]);
    const key = prefixed ? `${prefixed[1]}:${prefixed[2].trim()}` : m[1];
    const value = m[2];
    const colon = value.lastIndexOf(':');
    const target = colon >= 0 ? value.slice(0, colon).trim() : undefined;
    const pText = colon >= 0 ? value.slice(colon + 1).trim() : value;
    const p = pText === '' ? NaN : Number(pText);
    if (!Number.isFinite(p) || p < 0 || p > 1 || target === '') continue;
    steering.set(key, target === undefined ? { p } : { p, target });
  }
  return steering;
}

/** The steered units of `q` from the most specific applicable marker, or undefined. */
function steeredUnits(q: NormalQuestion, steering: Steering, scale: number): number[] | undefined {
  if (steering.size === 0) return undefined;
  const n = q.labels.length;
  for (const key of [`${q.type}:${q.id}`, q.id, `${q.type}:p`, 'p']) {
    const s = steering.get(key);
    if (!s) continue;
    if (q.type === 'noul') {
      if (s.target === undefined || s.target === 'true') return [Math.round(s.p * scale)];
      if (s.target === 'false') return [Math.round((1 - s.p) * scale)];
      continue;
    }
    // Default outcome: the first choice label / the highest score level.
    const index = s.target === undefined ? (q.type === 'choice' ? 0 : n - 1) : q.labels.indexOf(s.target);
    if (index >= 0) return toUnits(steeredDistribution(n, index, s.p), scale);
  }
  return undefined;
}

/** Largest-remainder rounding of a distribution to integer units summing exactly to `scale`. */
export function toUnits(probs: number[], scale: number): number[] {
  let total = 0;
  for (const p of probs) total += p;
  if (!(total > 0)) total = 1;
  const units = new Array<number>(probs.length);
  const fracs = new Array<number>(probs.length);
  let used = 0;
  for (let i = 0; i < probs.length; i++) {
    const exact = (probs[i] / total) * scale;
    units[i] = Math.floor(exact);
    fracs[i] = exact - units[i];
    used += units[i];
  }
  let rest = scale - used;
  if (rest > 0) {
    const order = fracs.map((_, i) => i).sort((a, b) => fracs[b] - fracs[a] || a - b);
    for (let k = 0; rest > 0; k = (k + 1) % order.length, rest--) units[order[k]]++;
  }
  return units;
}

function noulProbability(rand: () => number): number {
  const z = (rand() * 2 - 1) * 5.5;
  return 1 / (1 + Math.exp(-z));
}

function choiceDistribution(n: number, rand: () => number): number[] {
  const sharpness = 2 + rand() * 6;
  const logits = new Array<number>(n);
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    logits[i] = rand() * sharpness;
  }
  logits[Math.floor(rand() * n)] += 1 + rand() * 3;
  for (const l of logits) if (l > max) max = l;
  return logits.map((l) => Math.exp(l - max));
}

function scoreDistribution(n: number, rand: () => number): number[] {
  const centre = rand() * (n - 1);
  const width = 0.35 + rand() * 1.0;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    out[i] = Math.exp(-((i - centre) ** 2) / (2 * width * width)) * (0.75 + 0.5 * rand());
  }
  return out;
}

function steeredDistribution(n: number, index: number, p: number): number[] {
  if (n === 1) return [1];
  const rest = (1 - p) / (n - 1);
  const out = new Array<number>(n).fill(rest);
  out[index] = p;
  return out;
}

/**
 * The integer units (out of `scale`) of one question: noul → `[units of P(true)]`;
 * choice/score → one entry per label/level, summing to `scale`.
 */
export function questionUnits(
  q: NormalQuestion,
  stateHash: number,
  steering: Steering,
  scale: number,
  hashParts: string,
): number[] {
  const steered = steeredUnits(q, steering, scale);
  if (steered) return steered;
  if (q.type === 'noul') return [Math.round(noulProbability(mulberry32(fnv1a(hashParts, stateHash))) * scale)];
  const n = q.labels.length;
  const rand = mulberry32(fnv1a(hashParts, stateHash));
  return toUnits(q.type === 'choice' ? choiceDistribution(n, rand) : scoreDistribution(n, rand), scale);
}

/** Index of the first maximum. */
export function argmax(units: number[]): number {
  let best = 0;
  for (let i = 1; i < units.length; i++) if (units[i] > units[best]) best = i;
  return best;
}

/** Jev choice confidence: (n·p_max − 1)/(n − 1); 1 for n = 1. */
export function choiceConfidence(probs: number[]): number {
  const n = probs.length;
  if (n <= 1) return 1;
  const pMax = Math.max(...probs);
  return Math.min(1, Math.max(0, (n * pMax - 1) / (n - 1)));
}

/** Jev score confidence: max(0, 1 − D/U), D = Σ pᵢ·|i − mode|, U = ⌊n²/4⌋/n. */
export function scoreConfidence(probs: number[]): number {
  const n = probs.length;
  if (n <= 1) return 1;
  const mode = argmax(probs);
  let d = 0;
  for (let i = 0; i < n; i++) d += probs[i] * Math.abs(i - mode);
  const u = Math.floor((n * n) / 4) / n;
  return Math.max(0, 1 - d / u);
}

/** Laya confidence: normalised entropy 1 − H(p)/ln k; 1 for k = 1. */
export function entropyConfidence(probs: number[]): number {
  const k = probs.length;
  if (k <= 1) return 1;
  let h = 0;
  for (const p of probs) if (p > 0) h -= p * Math.log(p);
  return Math.min(1, Math.max(0, 1 - h / Math.log(k)));
}

/** The text hashed for a question (besides the state): its instructions and criteria. */
export function questionHashText(q: NormalQuestion): string {
  return JSON.stringify(q.instructions ?? null) + '\u241e' + JSON.stringify(q.criteria ?? null);
}

/** Build one answer object. `scale` is 100 (Jev, 2 dp) or 10000 (Laya, 4 dp). */
export function buildAnswer(q: NormalQuestion, units: number[], scale: number, laya: boolean): Record<string, unknown> {
  const round = (x: number) => Math.round(x * scale) / scale;
  if (q.type === 'noul') {
    const p = units[0] / scale;
    if (!laya) return { type: 'noul', noul: p };
    const c = round(Math.max(p, 1 - p));
    return { type: 'noul', noul: p, confidence: c, answer_confidence: c, action: { act_probability: 1 } };
  }
  const probs = units.map((u) => u / scale);
  const probabilities: Record<string, number> = Object.create(null);
  for (let i = 0; i < q.labels.length; i++) probabilities[q.labels[i]] = probs[i];
  const top = argmax(units);
  if (q.type === 'choice') {
    const jevConfidence = round(choiceConfidence(probs));
    if (!laya) return { type: 'choice', choice: q.labels[top], confidence: jevConfidence, probabilities };
    return {
      type: 'choice',
      choice: q.labels[top],
      probabilities,
      confidence: round(entropyConfidence(probs)),
      answer_confidence: probs[top],
      action: { act_probability: 1 },
      x_jev_confidence: jevConfidence,
    };
  }
  let weighted = 0;
  for (let i = 0; i < units.length; i++) weighted += i * units[i];
  const score = weighted / scale;
  const legend: Record<string, unknown> = Object.create(null);
  for (let i = 0; i < q.levels.length; i++) legend[String(i)] = q.levels[i];
  const jevConfidence = round(scoreConfidence(probs));
  if (!laya) return { type: 'score', score, confidence: jevConfidence, legend, probabilities };
  return {
    type: 'score',
    score,
    probabilities,
    confidence: round(entropyConfidence(probs)),
    legend,
    answer_confidence: probs[top],
    action: { act_probability: 1 },
    x_jev_confidence: jevConfidence,
  };
}

/**
 * Answers for every question of a validated request, keyed by question id. With `noisy` (a model with a noise
 * profile), a question whose truth the state gives (`[[truth=…]]`) is answered with that model's noise around it.
 */
export function answerAll(
  state: unknown,
  questions: NormalQuestion[],
  scale: number,
  laya: boolean,
  noisy?: NoisyModel,
): { answers: Record<string, Record<string, unknown>>; stateText: string } {
  const stateText = typeof state === 'string' ? state : JSON.stringify(state);
  const stateHash = fnv1a(stateText);
  const steering = parseSteering(stateText);
  const truths = noisy ? parseTruths(stateText) : undefined;
  const answers: Record<string, Record<string, unknown>> = Object.create(null);
  for (const q of questions) {
    const noisyTruth = truths?.size ? noisySteering(q, truths, noisy!, stateText) : undefined;
    const units = questionUnits(q, stateHash, noisyTruth ?? steering, scale, questionHashText(q));
    answers[q.id] = buildAnswer(q, units, scale, laya);
  }
  return { answers, stateText };
}

/** The noise settings and profile of the model a request names. */
export interface NoisyModel {
  readonly noise: SimulatorNoise;
  readonly profile: NoiseProfile;
  readonly model: string;
}

/** Steering for `q` drawn around its truth, or undefined (no truth for it, or a truth that names no answer of it). */
function noisySteering(
  q: NormalQuestion,
  truths: ReadonlyMap<string, string>,
  { noise, profile, model }: NoisyModel,
  stateText: string,
): Steering | undefined {
  const truth = truths.get(q.id) ?? truths.get('');
  if (truth === undefined) return undefined;
  const answers = q.type === 'noul' ? ['true', 'false'] : q.labels;
  const index = q.type === 'noul' ? yesNoIndex(truth) : answers.indexOf(truth);
  if (index < 0) return undefined;
  const draw = drawNoise(noise, profile, model, caseKeyOf(stateText), q.id);
  return new Map([[`${q.type}:${q.id}`, noisyTarget(draw, answers, index)]]);
}
