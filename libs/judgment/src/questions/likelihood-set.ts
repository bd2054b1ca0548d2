import { InvalidQuestion } from '../errors';
import { describe, requireQuestionText } from './question-text';

/** Independent Likelihoods over a closed set of labels, each label supplying its complete question. */
export class LikelihoodSet<L extends string = string> {
  readonly kind = 'likelihood_set' as const;
  /** Labels in declaration order. */
  readonly labels: readonly L[];
  private readonly texts: ReadonlyMap<string, string>;

  private constructor(entries: ReadonlyArray<readonly [L, string]>) {
    this.labels = Object.freeze(entries.map(([label]) => label));
    this.texts = new Map(entries);
    Object.freeze(this);
  }

  static of<const L extends string>(questions: Readonly<Record<L, string>>): LikelihoodSet<L> {
    if (questions === null || typeof questions !== 'object' || Array.isArray(questions)) {
      throw new InvalidQuestion(
        'Each label of a Likelihood Set supplies its complete question: pass a { label: "question" } map ' +
          `(a Record<MyEnum, string> works); got ${describe(questions)}.`,
      );
    }
    const entries = Object.entries(questions) as Array<[L, unknown]>;
    for (const [label, text] of entries) {
      if (label.includes('.')) {
        throw new InvalidQuestion(
          `A Likelihood Set label cannot contain a dot (it is sent as "set.label"); rename "${label}".`,
        );
      }
      if (label.trim() === '') throw new InvalidQuestion('A Likelihood Set label cannot be blank.');
      requireQuestionText(text, `The Likelihood Set label "${label}"`);
    }
    if (entries.length === 0) {
      throw new InvalidQuestion('A Likelihood Set needs at least 1 label with its question; 0 given.');
    }
    return new LikelihoodSet(entries as Array<[L, string]>);
  }

  /** The complete question of one label. */
  textOf(label: L): string {
    return this.texts.get(label) as string;
  }
}
