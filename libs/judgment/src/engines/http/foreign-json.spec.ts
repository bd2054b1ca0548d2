import { redact, redactParsed } from './foreign-json';

const KEY = 'sk-live-abc';

/** What readResponse does: the text is redacted, then parsed, then its decoded strings are redacted. */
function read(text: string): unknown {
  const cleaned = redact(text, KEY);
  return redactParsed(JSON.parse(cleaned), cleaned, KEY);
}

describe('redactParsed', () => {
  it('blanks a key that only its decoded strings hold (written with a \\u escape, in a value or a key)', () => {
    const hidden = `\\u0073${KEY.slice(1)}`;
    expect(read(`{"a":"id ${hidden}","${hidden}":[1,"${hidden}"]}`)).toEqual({
      a: 'id [redacted]',
      '[redacted]': [1, '[redacted]'],
    });
  });

  it('walks the value whenever the text still holds the key', () => {
    const secret = 'ab]';
    const parsed = { note: 'x[redacted]ab]' };
    expect(redactParsed(parsed, JSON.stringify(parsed), secret)).toEqual({ note: 'x[redacted][redacted]' });
  });

  it('returns the parsed value itself when no string of the text can hide the key', () => {
    const cleaned = redact(`{"answers":{"a":{"noul":0.5}},"request_id":"req_${KEY}"}`, KEY);
    const parsed = JSON.parse(cleaned);
    expect(redactParsed(parsed, cleaned, KEY)).toBe(parsed);
    expect(parsed.request_id).toBe('req_[redacted]');
  });

  it('returns the value as it is without a key to hide', () => {
    const parsed = { a: '\\u0073' };
    expect(redactParsed(parsed, '{"a":"\\\\u0073"}', null)).toBe(parsed);
  });
});
