import { InvalidQuestion } from '../errors';
import { Classification } from './classification';
import { Likelihood } from './likelihood';
import { LikelihoodSet } from './likelihood-set';
import { Rating } from './rating';

/** A single Question the Engine answers. */
export type Question = Likelihood | Classification<string, boolean> | Rating;
/** What a Judgment's questions() may declare under a key. */
export type DeclaredQuestion = Question | LikelihoodSet<string>;
/** A Judgment's declared Questions, keyed by the names the app reads them by. */
export type QuestionMap = { readonly [key: string]: DeclaredQuestion };

export type QuestionKind = DeclaredQuestion['kind'];

/** Human names of the kinds, as messages say them. */
export const KIND_NAMES: Record<QuestionKind, string> = {
  likelihood: 'Likelihood',
  classification: 'Classification',
  rating: 'Rating',
  likelihood_set: 'Likelihood Set',
};

/** Checks that questions() returned a map of declared Questions, naming the offending key. */
export function readQuestions(judgment: string, questions: unknown): QuestionMap {
  if (questions === null || typeof questions !== 'object' || Array.isArray(questions)) {
    throw new InvalidQuestion(`${judgment}.questions() must return a { key: Question } map.`);
  }
  for (const [key, question] of Object.entries(questions)) {
    if (key === '__proto__') {
      throw new InvalidQuestion(
        `${judgment} declares a Question keyed "__proto__", which JavaScript objects cannot hold as an ordinary key ` +
          '(records, answers and caches would lose it): rename the key.',
      );
    }
    if (
      !(question instanceof Likelihood) &&
      !(question instanceof Classification) &&
      !(question instanceof Rating) &&
      !(question instanceof LikelihoodSet)
    ) {
      throw new InvalidQuestion(
        `${judgment} declares "${key}" as something that is not a Question: use Likelihood.that(), ` +
          'Classification.of(), Rating.of() or Likelihood.each().',
      );
    }
  }
  if (Object.keys(questions).length === 0) {
    throw new InvalidQuestion(`${judgment} declares no Questions: questions() must return at least one.`);
  }
  return questions as QuestionMap;
}

/**
 * The Questions as the Engine is asked them: Likelihood Sets expanded into `set.label` Likelihoods, in declaration
 * order. A direct key equal to an expanded key is refused.
 */
export function expandQuestions(judgment: string, questions: QuestionMap): Map<string, Question> {
  const expanded = new Map<string, Question>();
  const fromSet = new Set<string>();
  const add = (key: string, question: Question, viaSet: boolean) => {
    if (expanded.has(key)) {
      throw new InvalidQuestion(
        `${judgment} declares Question "${key}" twice: once directly and once as a label of a Likelihood Set. ` +
          'Rename one of them.',
      );
    }
    expanded.set(key, question);
    if (viaSet) fromSet.add(key);
  };
  for (const [key, question] of Object.entries(questions)) {
    if (question instanceof LikelihoodSet) {
      for (const [label, likelihood] of likelihoodsOf(question)) add(`${key}.${label}`, likelihood, true);
    } else {
      add(key, question, false);
    }
  }
  return expanded;
}

/** The Likelihoods a Likelihood Set expands to, keyed by label, in declaration order. */
export function likelihoodsOf<L extends string>(set: LikelihoodSet<L>): Array<[L, Likelihood]> {
  // Lives here rather than on LikelihoodSet so likelihood.ts and likelihood-set.ts do not import each other.
  return set.labels.map((label) => [label, Likelihood.that(set.textOf(label))]);
}
