import { InvalidQuestion } from '../errors';
import { describe, requireQuestionText } from './question-text';
import { LikelihoodSet } from './likelihood-set';

/** What a true and a false answer mean, when the statement alone is ambiguous. */
export interface LikelihoodMeaning {
  readonly true: string;
  readonly false: string;
}

/** A Question answered with the probability (0..1) that a statement about the Evidence is true. */
export class Likelihood {
  readonly kind = 'likelihood' as const;

  private constructor(
    readonly text: string,
    readonly criteria: LikelihoodMeaning | null,
  ) {
    Object.freeze(this);
  }

  /** A Likelihood that the statement (a complete question about the Evidence) is true. */
  static that(text: string): Likelihood {
    return new Likelihood(requireQuestionText(text, 'A Likelihood'), null);
  }

  /** A Likelihood Set: one independent Likelihood per label, each label supplying its complete question. */
  static each<const L extends string>(questions: Readonly<Record<L, string>>): LikelihoodSet<L> {
    return LikelihoodSet.of(questions);
  }

  /** A copy whose answers are explained: what a true and a false answer mean. */
  means(meaning: LikelihoodMeaning): Likelihood {
    if (meaning === null || typeof meaning !== 'object') {
      throw new InvalidQuestion(`Likelihood.means() takes { true: '...', false: '...' }; got ${describe(meaning)}.`);
    }
    for (const side of ['true', 'false'] as const) {
      if (typeof meaning[side] !== 'string' || meaning[side].trim() === '') {
        throw new InvalidQuestion(
          `Likelihood.means() needs a non-blank "${side}" text describing what a ${side} answer means; ` +
            `got ${describe(meaning[side])}.`,
        );
      }
    }
    return new Likelihood(this.text, Object.freeze({ true: meaning.true, false: meaning.false }));
  }
}
