import { InvalidQuestion } from '../errors';

/** Checks a Question's text: a complete, non-blank question about the Evidence. */
export function requireQuestionText(text: unknown, where: string): string {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new InvalidQuestion(
      `${where} needs its text: ask a complete question about the Evidence, e.g. ` +
        `"Is this refund request an attempt to abuse the refund policy?"; got ${describe(text)}.`,
    );
  }
  return text;
}

export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'plain'} object`;
  return `${typeof value} ${String(value)}`;
}

// A backticked dotted path: identifier-like segments (list indexes as numbers), e.g. `request.explanation`.
const BACKTICKED_PATH = /`([A-Za-z_$][\w$-]*(?:\.[\w$-]+)*)`/g;

/**
 * The Evidence paths a question's text names in backticks (`` `request.explanation` ``), in order, without repeats.
 * Only backticked paths count: plain words are never read as paths.
 */
export function evidencePathsIn(text: string): string[] {
  return [...new Set([...text.matchAll(BACKTICKED_PATH)].map((match) => match[1]))];
}
