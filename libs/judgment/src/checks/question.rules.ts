import type { CheckFinding } from '../errors';
import { unresolvedEvidencePaths } from '../definition/evidence-paths';
import type { Question, QuestionMap } from '../questions/question';
import { computationIn, negationIn } from './wording';

/** A Judgment class as the warning rules read it: its Questions, and its Evidence's shape when known statically. */
export interface ReadJudgment {
  readonly name: string;
  readonly questions: QuestionMap;
  /** The expanded Questions (Likelihood Sets as `set.label` Likelihoods). */
  readonly expanded: ReadonlyMap<string, Question>;
  /** The Evidence's shape (see `evidenceShape`), or null when it is only known at run time. */
  readonly shape: unknown;
}

/** A rule that warns about Questions that run but mislead. */
export type QuestionRule = (judgment: ReadJudgment) => CheckFinding[];

function warning(judgment: ReadJudgment, rule: string, key: string | null, problem: string, fix: string): CheckFinding {
  return { severity: 'warning', rule, judgment: judgment.name, decision: null, key, problem, fix };
}

/** A Likelihood phrased in the negative is not the complement of the positive one: ask the positive. */
export const negativeLikelihood: QuestionRule = (judgment) =>
  [...judgment.expanded].flatMap(([key, question]) => {
    const word = question.kind === 'likelihood' ? negationIn(question.text) : null;
    return word === null
      ? []
      : [
          warning(
            judgment,
            'negative-likelihood',
            key,
            `The Likelihood is phrased in the negative ("${word}"); a model's P(not A) is not 1 − P(A), so its answers ` +
              'are read less reliably.',
            'Ask the positive statement and let the Decision read a low probability (likelihood.below(...)).',
          ),
        ];
  });

/** Counting, summing and computing over the Evidence is answered wrongly with medium confidence. */
export const computation: QuestionRule = (judgment) =>
  [...judgment.expanded].flatMap(([key, question]) => {
    const phrase = computationIn(question.text);
    return phrase === null
      ? []
      : [
          warning(
            judgment,
            'computation',
            key,
            `The question asks the Engine to count or compute ("${phrase}"), which it answers wrongly with medium ` +
              'confidence.',
            'Compute the number in code, show it in evidence() (or give it to the Decision), and ask only what needs ' +
              'judgment.',
          ),
        ];
  });

/** Words a Likelihood's text must share with another's, from the start, to read as one question of two labels. */
const SHARED_OPENING_WORDS = 4;

/**
 * Several direct Likelihoods asking the same question of different labels are one Likelihood Set: their texts share
 * the first 4 words and at least half of the longest one's words, from the start.
 */
export const likelihoodSetCandidates: QuestionRule = (judgment) => {
  const byOpening = new Map<string, Array<{ key: string; words: string[] }>>();
  for (const [key, question] of Object.entries(judgment.questions)) {
    if (question.kind !== 'likelihood') continue;
    const words = question.text.toLowerCase().match(/[\p{L}\p{N}'’]+/gu) ?? [];
    if (words.length <= SHARED_OPENING_WORDS) continue;
    const opening = words.slice(0, SHARED_OPENING_WORDS).join(' ');
    byOpening.set(opening, [...(byOpening.get(opening) ?? []), { key, words }]);
  }
  return [...byOpening.values()]
    .filter((group) => group.length > 1 && sharedPrefix(group.map((g) => g.words)) * 2 >= longest(group))
    .map((group) => {
      const keys = group.map((g) => g.key);
      const opening = group[0].words.slice(0, sharedPrefix(group.map((g) => g.words))).join(' ');
      return warning(
        judgment,
        'likelihood-set',
        keys[0],
        `The Likelihoods ${keys.map((key) => `"${key}"`).join(', ')} ask the same question ("${opening} ...") of ` +
          'different labels.',
        `Declare them as one Likelihood Set: Likelihood.each({ ${keys.map((key) => `${key}: '...'`).join(', ')} }).`,
      );
    });
};

/** How many words all the texts share from the start. */
function sharedPrefix(texts: string[][]): number {
  let length = 0;
  while (texts.every((words) => length < words.length && words[length] === texts[0][length])) length += 1;
  return length;
}

function longest(group: Array<{ words: string[] }>): number {
  return Math.max(...group.map((g) => g.words.length));
}

/**
 * A Rating is answered even when the Evidence has nothing to rate: a Likelihood that the Evidence holds what it rates
 * guards it. What a Rating rates is read from its text: its words but the "How …" adjective and small words (in
 * "How severe is the problem the customer describes?", problem, customer, describe; an Evidence path's words count,
 * as `request.explanation` names the request); a Likelihood guards it when its text names one of them ("Does the
 * customer describe a problem?"). One about something else does not.
 */
export const unguardedRating: QuestionRule = (judgment) => {
  const likelihoods = [...judgment.expanded.values()]
    .filter((question) => question.kind === 'likelihood')
    .map((question) => new Set(contentWords(question.text)));
  return [...judgment.expanded]
    .filter(([, question]) => question.kind === 'rating')
    .flatMap(([key, question]) => {
      const rated = ratedWords(question.text);
      if (likelihoods.some((words) => rated.some((word) => words.has(word)))) return [];
      const what = rated.length > 0 ? ` (${rated.map((word) => `"${word}"`).join(', ')})` : '';
      return [
        warning(
          judgment,
          'unguarded-rating',
          key,
          `No Likelihood beside the Rating names what it rates${what}, so nothing says the Evidence holds it: a ` +
            'middle level is answered even when there is nothing to rate.',
          'Add a Likelihood that the Evidence holds it (e.g. "Does the ticket describe a problem?" beside "How ' +
            'severe is the problem?") and let the Decision read the Rating only when that is likely.',
        ),
      ];
    });
};

/** Small words a question is built of, which say nothing of what it is about. */
const SMALL_WORDS = new Set(
  (
    'the a an is are was were be been this that these those of in on at to for with by from and or it its they ' +
    'their them does do did has have had how what which who whom whose when where why there any some much many ' +
    'very more most less about into over than then so as can could would should will may might not no yes one'
  ).split(' '),
);

/** The words of a question that say what it is about: lower case, singular, small words left out. */
function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/\p{L}+/gu) ?? [])
    .filter((word) => word.length >= 3 && !SMALL_WORDS.has(word))
    .map((word) => (word.length > 4 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word));
}

/** What a Rating rates: its content words but the degree it asks about (the word after "How"). */
function ratedWords(text: string): string[] {
  const degree = /\bhow\s+(\p{L}+)/iu.exec(text)?.[1]?.toLowerCase();
  return [...new Set(contentWords(text).filter((word) => word !== degree))];
}

/** A backticked path the Evidence's shape cannot have (known statically) is answered anyway. */
export const missingEvidencePath: QuestionRule = (judgment) => {
  if (judgment.shape === null) return [];
  return unresolvedEvidencePaths(judgment.expanded, judgment.shape).map(({ key, path }) =>
    warning(
      judgment,
      'evidence-path',
      key,
      `The question names \`${path}\`, which the Evidence of ${judgment.name} does not have: the Engine answers it ` +
        'anyway, from nothing.',
      `Show \`${path}\` in evidence(), or name a path it has.`,
    ),
  );
};

/** The warning rules, in the order they are reported. */
export const QUESTION_RULES: readonly QuestionRule[] = [
  negativeLikelihood,
  computation,
  likelihoodSetCandidates,
  unguardedRating,
  missingEvidencePath,
];
