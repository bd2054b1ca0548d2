import { Classification, Likelihood, Rating } from '../questions';
import {
  answerSignals,
  collapseReason,
  MIN_SIGNAL_ANSWERS,
  pooledFigures,
  signalFigures,
  signalOf,
  type SignalFigures,
} from './signal-figures';

const calibrated: SignalFigures = { answers: 120, certainShare: 0.05, meanEntropy: 0.6 };
/** `answers` live answers, `certain` of them near-certain, with this mean entropy. */
const live = (answers: number, certain: number, meanEntropy: number): SignalFigures => ({
  answers,
  certainShare: certain / answers,
  meanEntropy,
});

describe('signal figures', () => {
  it('reads each answer as its likeliest probability and its entropy over the most it could be', () => {
    expect(signalOf([0.5, 0.5])).toEqual({ top: 0.5, entropy: 1 });
    expect(signalOf([1, 0, 0])).toEqual({ top: 1, entropy: 0 });
    expect(signalOf([0.9, 0.1]).entropy).toBeCloseTo(-(0.9 * Math.log(0.9) + 0.1 * Math.log(0.1)) / Math.log(2), 12);
  });

  it('reads one answer per Question, a Likelihood Set label each, from the encoded answers', () => {
    const questions = {
      fraud: Likelihood.that('Is it fraud?'),
      team: Classification.of('Which team?', ['billing', 'tech']),
      harm: Likelihood.each({ spam: 'Spam?', threat: 'A threat?' }),
      severity: Rating.of('How bad?', ['low', 'mid', 'high']),
    };
    const signals = answerSignals(questions, {
      fraud: 0.9995,
      team: { billing: 0.5, tech: 0.5 },
      harm: { spam: 0.2, threat: 0.0001 },
      severity: [0.2, 0.3, 0.5],
    });
    expect(signals.map(({ top }) => top)).toEqual([0.9995, 0.5, 0.8, 0.9999, 0.5]);
    expect(signalFigures(signals)).toMatchObject({ answers: 5, certainShare: 0.4 });
  });

  it('pools calibrations weighted by their answers', () => {
    const pooled = pooledFigures([
      { answers: 100, certainShare: 0.1, meanEntropy: 0.5 },
      { answers: 300, certainShare: 0.3, meanEntropy: 0.1 },
    ]);
    expect(pooled).toEqual({ answers: 400, certainShare: 0.25, meanEntropy: 0.2 });
    expect(pooledFigures([])).toBeNull();
  });
});

describe('the signal-collapse rule', () => {
  it('holds a collapse when far more live answers are near-certain and their entropy fell below half', () => {
    const reason = collapseReason(calibrated, live(200, 190, 0.02));
    expect(reason).toContain('95.0 % of the last 200 answers were above 0.999 (calibrated: 5.0 % of 120)');
    expect(reason).toContain('Calibrate again');
  });

  it('needs enough live answers', () => {
    expect(collapseReason(calibrated, live(MIN_SIGNAL_ANSWERS - 1, MIN_SIGNAL_ANSWERS - 1, 0))).toBeNull();
    expect(collapseReason(calibrated, live(MIN_SIGNAL_ANSWERS, MIN_SIGNAL_ANSWERS, 0))).not.toBeNull();
  });

  it('needs the near-certain share surely 0.25 above the calibrated one: the low end of its 95 % interval', () => {
    // 40 % of 200: the interval's low end (33.5 %) is above 5 % + 25 %.
    expect(collapseReason(calibrated, live(200, 80, 0.1))).not.toBeNull();
    // 35 % of 200: its low end (28.7 %) is not.
    expect(collapseReason(calibrated, live(200, 70, 0.1))).toBeNull();
  });

  it('needs the entropy to fall below half of the calibrated one as well', () => {
    expect(collapseReason(calibrated, live(200, 190, 0.29))).not.toBeNull();
    expect(collapseReason(calibrated, live(200, 190, 0.3))).toBeNull();
  });

  it('never holds one for a model that was already near-certain when calibrated', () => {
    const confident = { answers: 200, certainShare: 0.9, meanEntropy: 0.01 };
    expect(collapseReason(confident, live(200, 200, 0))).toBeNull();
  });
});
