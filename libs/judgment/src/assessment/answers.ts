import { UndeclaredLabel } from '../errors';
import { NONE_LABEL } from '../questions/classification';
import { isTracing, noteLabelRead, noteLabelTest, noteRead, noteValue } from './reading-trace';
import { Thresholded, confidenceOf } from './thresholds';

/** The probability (0..1) that a Likelihood's statement is true. It has no Confidence: a middle value is the doubt. */
export class LikelihoodAnswer extends Thresholded {
  constructor(readonly probability: number) {
    super();
    Object.freeze(this);
  }
  protected thresholdValue(): number {
    return this.probability;
  }
}

/** The `none` label's type when the Classification was declared with `.orNone()`. */
export type NoneLabel<N extends boolean> = N extends true ? typeof NONE_LABEL : never;

/** A probability per label of a Classification, in declared order. */
export class ClassificationAnswer<L extends string = string, N extends boolean = boolean> {
  /**
   * The most probable label (ties go to the earlier declared label); null when the escape option `none` wins. Reading
   * it inside decide() is traced as the test `team is <label>` (a Decision routes on it, e.g. `label === null`).
   */
  declare readonly label: N extends true ? L | null : L;
  /** Label → probability, in declared order (the escape option last). */
  readonly probabilities: Readonly<Record<L | NoneLabel<N>, number>>;
  /** Top probability minus the runner-up. */
  readonly confidence: number;

  constructor(
    private readonly key: string,
    entries: ReadonlyArray<readonly [string, number]>,
    allowsNone: boolean,
  ) {
    let top = entries[0];
    for (const entry of entries) if (entry[1] > top[1]) top = entry;
    const label = allowsNone && top[0] === NONE_LABEL ? null : top[0];
    const [winner, probability] = top;
    // An own enumerable accessor: it serialises and compares like a field, and tells the trace it was read.
    Object.defineProperty(this, 'label', {
      enumerable: true,
      get: () => {
        if (isTracing()) noteLabelRead(this, winner, probability);
        return label;
      },
    });
    this.probabilities = Object.freeze(Object.fromEntries(entries)) as Readonly<Record<L | NoneLabel<N>, number>>;
    this.confidence = confidenceOf(entries.map(([, p]) => p));
    Object.freeze(this);
  }

  /** True when `label` is the most probable label. */
  is(label: L | NoneLabel<N>): boolean {
    this.check(label);
    const result = this.label === label || (label === NONE_LABEL && this.label === null);
    if (isTracing()) noteLabelTest(this, label, (this.probabilities as Record<string, number>)[label], result);
    return result;
  }

  /** The probability of one label (`none` for the escape option). */
  probabilityOf(label: L | NoneLabel<N>): number {
    this.check(label);
    const probability = (this.probabilities as Record<string, number>)[label];
    if (isTracing()) noteValue(`${this.key}.${label}`, probability);
    return probability;
  }

  private check(label: string): void {
    if (!Object.prototype.hasOwnProperty.call(this.probabilities, label)) {
      throw new UndeclaredLabel('Classification', this.key, String(label), Object.keys(this.probabilities));
    }
  }
}

/** A probability per level of a Rating, lowest first. Thresholds compare `expected`. */
export class RatingAnswer extends Thresholded {
  /** Index (from 0) of the most probable level (ties go to the lower level). */
  readonly level: number;
  /** The description of the most probable level. */
  readonly levelName: string;
  /** Σ index × probability. */
  readonly expected: number;
  /** Top probability minus the runner-up. */
  readonly confidence: number;

  constructor(
    readonly probabilities: readonly number[],
    levels: readonly string[],
  ) {
    super();
    this.probabilities = Object.freeze([...probabilities]);
    let level = 0;
    probabilities.forEach((p, index) => {
      if (p > probabilities[level]) level = index;
    });
    this.level = level;
    this.levelName = levels[level];
    this.expected = probabilities.reduce((sum, p, index) => sum + index * p, 0);
    this.confidence = confidenceOf(probabilities);
    Object.freeze(this);
  }

  protected thresholdValue(): number {
    return this.expected;
  }
}

/** Independent Likelihoods over the labels of a Likelihood Set. */
export class LikelihoodSetAnswer<L extends string = string> {
  /** Label → LikelihoodAnswer, in declared order. */
  readonly likelihoods: Readonly<Record<L, LikelihoodAnswer>>;
  private readonly order: readonly L[];

  constructor(
    private readonly key: string,
    entries: ReadonlyArray<readonly [L, number]>,
  ) {
    this.order = Object.freeze(entries.map(([label]) => label));
    this.likelihoods = Object.freeze(
      Object.fromEntries(entries.map(([label, p]) => [label, new LikelihoodAnswer(p)])),
    ) as Readonly<Record<L, LikelihoodAnswer>>;
    Object.freeze(this);
  }

  /** The Likelihood of one label. */
  of(label: L): LikelihoodAnswer {
    if (!Object.prototype.hasOwnProperty.call(this.likelihoods, label)) {
      throw new UndeclaredLabel('Likelihood Set', this.key, String(label), this.order);
    }
    const likelihood = this.likelihoods[label];
    if (isTracing()) noteRead(likelihood, `${this.key}.${label}`, 'likelihood', likelihood.probability);
    return likelihood;
  }

  /** A Likelihood holding the highest probability in the set. */
  max(): LikelihoodAnswer {
    const max = new LikelihoodAnswer(Math.max(...this.order.map((label) => this.likelihoods[label].probability)));
    if (isTracing()) noteRead(max, `${this.key}.max`, 'likelihood', max.probability);
    return max;
  }

  /** Labels whose probability is ≥ `threshold`, highest first (ties keep declaration order). */
  labelsAbove(threshold: number): L[] {
    return this.order
      .filter((label) => this.of(label).above(threshold))
      .sort((a, b) => this.likelihoods[b].probability - this.likelihoods[a].probability);
  }
}
