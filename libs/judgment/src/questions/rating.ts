import { InvalidQuestion } from '../errors';
import { describe, requireQuestionText } from './question-text';

export const MIN_LEVELS = 2;
export const MAX_LEVELS = 10;

/** A Question answered with a probability for each level of an ordered scale, lowest first. */
export class Rating {
  readonly kind = 'rating' as const;

  private constructor(
    readonly text: string,
    /** Level descriptions, lowest first; a level's index is its number. */
    readonly levels: readonly string[],
  ) {
    Object.freeze(this);
  }

  static of(text: string, levels: readonly string[]): Rating {
    requireQuestionText(text, 'A Rating');
    if (!Array.isArray(levels)) {
      throw new InvalidQuestion(`A Rating takes a list of level descriptions, lowest first; got ${describe(levels)}.`);
    }
    if (levels.length < MIN_LEVELS || levels.length > MAX_LEVELS) {
      throw new InvalidQuestion(
        `A Rating needs ${MIN_LEVELS} to ${MAX_LEVELS} levels; ${levels.length} given. ` +
          'Describe each level, lowest first.',
      );
    }
    levels.forEach((level, index) => {
      if (typeof level !== 'string' || level.trim() === '') {
        throw new InvalidQuestion(
          `Rating level ${index} needs a description (the Engine reads levels as text, not numbers); ` +
            `got ${describe(level)}.`,
        );
      }
    });
    return new Rating(text, Object.freeze([...levels]));
  }
}
