import type { EvidenceMap } from '../../definition/evidence';
import type { Question } from '../../questions/question';
import { fencedEvidenceJson } from '../jev/fence';

/** Option letters of a Classification, in order: single tokens in every common tokenizer, distinct once case-folded. */
export const OPTION_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The Chat Completions request body of one Question (without `model`, `top_logprobs` and the driver's settings). */
export interface ChatPrompt {
  readonly messages: ReadonlyArray<{ readonly role: 'system' | 'user'; readonly content: string }>;
  /** The answer tokens, one per option in order: `yes`/`no`, option letters, or level digits. */
  readonly tokens: readonly string[];
}

const SYSTEM =
  'You assess evidence for an application. Read the evidence, then answer the question with exactly one of the ' +
  'allowed answers and nothing else: no explanation, no punctuation.';

/**
 * The answer tokens a Question is asked with: `yes`, `no` for a Likelihood; a letter per option of a Classification
 * (its labels are shown beside them); a digit per level of a Rating, lowest first. Null when the Question has more
 * options than there are single-token answers (more than 26 options).
 */
export function answerTokens(question: Question): readonly string[] | null {
  switch (question.kind) {
    case 'likelihood':
      return ['yes', 'no'];
    case 'classification': {
      const count = question.options().length;
      return count > OPTION_LETTERS.length ? null : [...OPTION_LETTERS.slice(0, count)];
    }
    case 'rating':
      return question.levels.map((_, level) => String(level));
  }
}

/**
 * The messages asking one Question about the Evidence, so that its answer is one token of `tokens`. UntrustedText is
 * fenced as for the Jev driver. The caller has checked `answerTokens(question)` is not null.
 */
export function chatPrompt(key: string, question: Question, evidence: EvidenceMap): ChatPrompt {
  const tokens = answerTokens(question) ?? [];
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
