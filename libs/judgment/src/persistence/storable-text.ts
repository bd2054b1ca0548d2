/** The length of the record's text columns the app fills (`judgment`, `subject_id`, `language`, … are varchar(255)). */
export const TEXT_COLUMN_LENGTH = 255;

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a text cannot be stored in a column of `length` characters, or null when it can: too long (counted in
 * characters, as PostgreSQL counts them), a NUL (PostgreSQL stores none), an unpaired surrogate (not text).
 */
export function unstorableText(value: string, length: number = TEXT_COLUMN_LENGTH): string | null {
  // A UTF-16 length within the limit is within it in characters too: only longer strings are counted again.
  const characters = value.length > length ? [...value].length : value.length;
  if (characters > length) return `is ${characters} characters long`;
  if (value.includes('\0')) return 'holds a NUL character, which the database cannot store';
  if (UNPAIRED_SURROGATE.test(value)) return 'holds an unpaired surrogate, which is not text the database can store';
  return null;
}
