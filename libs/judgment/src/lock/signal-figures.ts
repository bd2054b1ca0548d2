import type { EncodedAnswers } from '../assessment/assessment';
import type { QuestionMap } from '../questions/question';
import { wilsonInterval } from './wilson-interval';

/**
 * How much signal an Engine's answers carry: of a set of answers (one per Question answered, a Likelihood Set's labels
 * each), the share that is near-certain and their mean normalised entropy. A model whose probabilities collapse
 * (every answer at about 100 %, as after some model upgrades) keeps its accuracy on easy cases but loses what the
 * Decision's thresholds and Review band were calibrated on.
 */
export interface SignalFigures {
  /** Answers measured. */
  readonly answers: number;
  /** Share of the answers whose likeliest option has a probability above NEAR_CERTAIN. */
  readonly certainShare: number;
  /** Mean entropy of the answers divided by its largest value (ln of the options): 0 all on one, 1 spread evenly. */
  readonly meanEntropy: number;
}

/** An answer whose likeliest option is above this is near-certain. */
export const NEAR_CERTAIN = 0.999;
/** The live answers a connection and model is judged on: the most recent this many. */
export const SIGNAL_WINDOW = 200;
/** Fewer live answers than this are not enough to tell a collapse. */
export const MIN_SIGNAL_ANSWERS = 50;
/** How far above the calibrated share the live near-certain share must be (the low end of its 95 % interval). */
export const CERTAIN_SHARE_MARGIN = 0.25;
/** The live mean entropy must be below this share of the calibrated one. */
export const ENTROPY_RATIO = 0.5;

/** One answer's figures: its likeliest option's probability and its normalised entropy. */
export interface AnswerSignal {
  readonly top: number;
  readonly entropy: number;
}

/** The figures of each answer of an Assessment (its Questions and its encoded answers), in declaration order. */
export function answerSignals(questions: QuestionMap, answers: EncodedAnswers): AnswerSignal[] {
  const signals: AnswerSignal[] = [];
  for (const [key, question] of Object.entries(questions)) {
    if (!Object.hasOwn(answers, key)) continue;
    const answer = answers[key];
    if (question.kind === 'likelihood') signals.push(signalOf([answer as number, 1 - (answer as number)]));
    else if (question.kind === 'likelihood_set') {
      for (const p of Object.values(answer as Record<string, number>)) signals.push(signalOf([p, 1 - p]));
    } else signals.push(signalOf(Object.values(answer as Record<string, number> | number[])));
  }
  return signals;
}

/** The figures of one distribution. */
export function signalOf(probabilities: readonly number[]): AnswerSignal {
  const entropy = probabilities.reduce((sum, p) => (p > 0 ? sum - p * Math.log(p) : sum), 0);
  const largest = Math.log(probabilities.length);
  return { top: Math.max(...probabilities), entropy: largest > 0 ? Math.min(1, Math.max(0, entropy / largest)) : 0 };
}

/** The figures of a set of answers; null for none. */
export function signalFigures(signals: readonly AnswerSignal[]): SignalFigures | null {
  if (signals.length === 0) return null;
  const certain = signals.filter(({ top }) => top > NEAR_CERTAIN).length;
  const entropy = signals.reduce((sum, signal) => sum + signal.entropy, 0);
  return { answers: signals.length, certainShare: certain / signals.length, meanEntropy: entropy / signals.length };
}

/** Several calibrations' figures as one, weighted by their answers; null for none. */
export function pooledFigures(figures: readonly SignalFigures[]): SignalFigures | null {
  const answers = figures.reduce((sum, figure) => sum + figure.answers, 0);
  if (answers === 0) return null;
  const weighted = (pick: (figure: SignalFigures) => number) =>
    figures.reduce((sum, figure) => sum + pick(figure) * figure.answers, 0) / answers;
  return { answers, certainShare: weighted((f) => f.certainShare), meanEntropy: weighted((f) => f.meanEntropy) };
}

/**
 * The signal-collapse rule: with at least MIN_SIGNAL_ANSWERS live answers, the signal has collapsed when the low end
 * of the 95 % Wilson interval of the live near-certain share is at least CERTAIN_SHARE_MARGIN above the calibrated
 * share, and the live mean entropy is below ENTROPY_RATIO of the calibrated one. Returns why in one sentence, or null.
 */
export function collapseReason(calibrated: SignalFigures, live: SignalFigures): string | null {
  if (live.answers < MIN_SIGNAL_ANSWERS) return null;
  const certain = Math.round(live.certainShare * live.answers);
  const low = wilsonInterval(certain, live.answers)?.low ?? 0;
  if (low < calibrated.certainShare + CERTAIN_SHARE_MARGIN) return null;
  if (!(live.meanEntropy < calibrated.meanEntropy * ENTROPY_RATIO)) return null;
  const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
  return (
    `${percent(live.certainShare)} of the last ${live.answers} answers were above ${NEAR_CERTAIN} (calibrated: ` +
    `${percent(calibrated.certainShare)} of ${calibrated.answers}) and their mean entropy fell to ` +
    `${live.meanEntropy.toFixed(3)} (calibrated: ${calibrated.meanEntropy.toFixed(3)}): the probabilities no longer ` +
    'carry the signal the thresholds were calibrated on. Calibrate again with this model, or pin the calibrated one.'
  );
}
