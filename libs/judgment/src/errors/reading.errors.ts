import { JudgmentError } from './judgment.error';

const list = (items: readonly string[]) => (items.length ? items.map((i) => `"${i}"`).join(', ') : 'none');

/** Reading a Question key the Judgment does not declare. */
export class UndeclaredQuestion extends JudgmentError {
  constructor(
    judgment: string,
    readonly key: string,
    declared: readonly string[],
  ) {
    super(`${judgment} declares no Question "${key}". Declared Questions: ${list(declared)}.`);
  }
}

const article = (kind: string) => (/^[aeiou]/i.test(kind) ? 'an' : 'a');

/** Reading a Question as another kind than it was declared. */
export class WrongQuestionKind extends JudgmentError {
  constructor(judgment: string, key: string, actual: string, requested: string) {
    super(
      `Question "${key}" on ${judgment} is ${article(actual)} ${actual}, not ${article(requested)} ${requested}; ` +
        `read it with the ${actual} accessor.`,
    );
  }
}

/** A label that the Classification or Likelihood Set does not declare. */
export class UndeclaredLabel extends JudgmentError {
  constructor(kind: 'Classification' | 'Likelihood Set', key: string, label: string, declared: readonly string[]) {
    super(`The ${kind} "${key}" declares no label "${label}". Declared labels: ${list(declared)}.`);
  }
}

/** A Rating level outside 0..n-1, or a list of the wrong length, in a fake. */
export class UndeclaredLevel extends JudgmentError {
  constructor(judgment: string, key: string, levels: number, given: string) {
    super(`The Rating "${key}" on ${judgment} has ${levels} levels, numbered 0 to ${levels - 1}; ${given} given.`);
  }
}

/** A probability or Confidence outside 0..1 in a fake. */
export class InvalidProbability extends JudgmentError {
  constructor(what: string, given: unknown) {
    super(`The ${what} must be a number from 0 to 1; ${String(given)} given.`);
  }
}

/** A fake Assessment was read for a Question its script did not answer. */
export class UnscriptedQuestion extends JudgmentError {
  constructor(judgment: string, key: string) {
    super(`Question "${key}" on ${judgment} was read, but this fake Assessment has no answer scripted for it.`);
  }
}
