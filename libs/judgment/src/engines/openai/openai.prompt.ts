import type { EvidenceMap } from '../../definition/evidence';
import type { Question } from '../../questions/question';
import { fencedEvidenceJson } from '../jev/fence';
import { WORD_LETTERS } from './option-distribution';

/** Option letters of a Classification, in order: single tokens in every common tokenizer, distinct once case-folded. */
export const OPTION_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/**
 * The letters a Classification is asked again with when its first answer sat on `A` or `I`, words a chatting model
 * starts with, and the rest of that answer did not show a model answering in letters: the alphabet without them.
 */
export const CLEAR_LETTERS = [...OPTION_LETTERS].filter((letter) => !WORD_LETTERS.has(letter.toLowerCase())).join('');
/** The most options a Classification may offer: one letter each, also when asked again without `A` and `I`. */
export const MAX_OPTIONS = CLEAR_LETTERS.length;

/** The Chat Completions request body of one Question (without `model`, `top_logprobs` and the driver's settings). */
export interface ChatPrompt {
  readonly messages: ReadonlyArray<{ readonly role: 'system' | 'user'; readonly content: string }>;
  /** The answer tokens, one per option in order: `yes`/`no`, option letters, or level digits. */
  readonly tokens: readonly string[];
}

const SYSTEM =
  'You assess evidence for an application. Read the evidence, then answer the question with exactly one of the ' +
  'allowed answers and nothing else: no explanation, no punctuation.';

/** The Chat Completions body asking `prompt` of `model`: one output token at temperature 0, with its logprobs. */
export function completionRequest(model: string, prompt: ChatPrompt, topLogprobs: number): string {
  return JSON.stringify({
    model,
    messages: prompt.messages,
    temperature: 0,
    max_tokens: 1,
    n: 1,
    logprobs: true,
    top_logprobs: topLogprobs,
  });
}

/**
 * The answer tokens a Question is asked with: `yes`, `no` for a Likelihood; a letter of `letters` per option of a
 * Classification (its labels are shown beside them); a digit per level of a Rating, lowest first. Null when the
 * Question has more options than `MAX_OPTIONS`.
 */
export function answerTokens(question: Question, letters = OPTION_LETTERS): readonly string[] | null {
  switch (question.kind) {
    case 'likelihood':
      return ['yes', 'no'];
    case 'classification': {
      const count = question.options().length;
      return count > MAX_OPTIONS ? null : [...letters.slice(0, count)];
    }
    case 'rating':
      return question.levels.map((_, level) => String(level));
  }
}

/**
 * The messages asking one Question about the Evidence, so that its answer is one token of `tokens` (a Classification's
 * options lettered from `letters`). UntrustedText is fenced as for the Jev driver. The caller has checked
 * `answerTokens(question)` is not null.
 */
export function chatPrompt(
  key: string,
  question: Question,
  evidence: EvidenceMap,
  letters = OPTION_LETTERS,
): ChatPrompt {
  const tokens = answerTokens(question, letters) ?? [];
  const lines = [`Evidence (JSON):\n${fencedEvidenceJson(evidence, 2)}`, '', `Question "${key}": ${question.text}`];
  switch (question.kind) {
    case 'likelihood':
      if (question.criteria !== null) lines.push(`yes: ${question.criteria.true}`, `no: ${question.criteria.false}`);
      lines.push('', 'Answer with one word: yes or no.');
      break;
    case 'classification':
      lines.push('Options:');
      question.criteria().forEach(([label, description], index) => {
        lines.push(`${tokens[index]}) ${label}${description === null ? '' : `: ${description}`}`);
      });
      lines.push('', 'Answer with the letter of one option only.');
      break;
    case 'rating':
      lines.push('Levels, lowest first:');
      question.levels.forEach((level, index) => lines.push(`${tokens[index]}) ${level}`));
      lines.push('', 'Answer with the number of one level only.');
      break;
  }
  return {
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: lines.join('\n') },
    ],
    tokens,
  };
}
