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
