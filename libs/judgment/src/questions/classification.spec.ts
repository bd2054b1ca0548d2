import { Classification } from 'nestjs-judgment';
import { NONE_LABEL } from './classification';
import { InvalidQuestion } from 'nestjs-judgment/testing';

enum Department {
  Billing = 'billing',
  Technical = 'technical',
}

enum Stars {
  One = 1,
  Two = 2,
}

const labels = (n: number) => Array.from({ length: n }, (_, i) => `label-${i}`);

describe('Classification', () => {
  it.each<[string, unknown]>([
    ['empty', ''],
    ['whitespace-only', '   '],
    ['not a string', null],
  ])('blank text is refused: %s', (_, text) => {
    expect(() => Classification.of(text as string, ['a', 'b'])).toThrow(InvalidQuestion);
    expect(() => Classification.of(text as string, ['a', 'b'])).toThrow(/A Classification needs its text/);
  });

  it('2 and 255 distinct labels are accepted', () => {
    expect(Classification.of('Which?', labels(2)).labels).toHaveLength(2);
    expect(Classification.of('Which?', labels(255)).labels).toHaveLength(255);
  });

  it('1 and 256 labels are refused, by a list or a map', () => {
    expect(() => Classification.of('Which?', labels(1))).toThrow(/at least 2 labels; 1 given/);
    expect(() => Classification.of('Which?', { only: 'The one' })).toThrow(/at least 2 labels; 1 given/);
    expect(() => Classification.of('Which?', labels(256))).toThrow(/at most 255 labels; 256 given/);
    expect(() => Classification.of('Which?', [])).toThrow(InvalidQuestion);
  });

  it('a repeated label in a list is refused', () => {
    expect(() => Classification.of('Which?', ['a', 'b', 'a'])).toThrow(InvalidQuestion);
    expect(() => Classification.of('Which?', ['a', 'b', 'a'])).toThrow(/distinct; "a" is repeated/);
  });

  it('a blank label is refused', () => {
    expect(() => Classification.of('Which?', ['a', ' '])).toThrow(/label 1 is blank/);
    expect(() => Classification.of('Which?', { a: null, '': null })).toThrow(/cannot be blank/);
  });

  it('labels from a list keep their order, without descriptions', () => {
    const question = Classification.of('Which?', ['zeta', 'alpha', 'mid']);
    expect(question.labels).toEqual(['zeta', 'alpha', 'mid']);
    expect(question.criteria()).toEqual([
      ['zeta', null],
      ['alpha', null],
      ['mid', null],
    ]);
  });

  it('labels from a label → description map keep their order and descriptions', () => {
    const question = Classification.of('Which language?', { italian: 'Mostly Italian', english: null });
    expect(question.labels).toEqual(['italian', 'english']);
    expect(question.criteria()).toEqual([
      ['italian', 'Mostly Italian'],
      ['english', null],
    ]);
  });

  it('labels from Object.values(StringEnum) are the enum values', () => {
    expect(Classification.of('Which team?', Object.values(Department)).labels).toEqual(['billing', 'technical']);
  });

  it('labels from a Record<Enum, string> are the enum values with their descriptions', () => {
    const descriptions: Record<Department, string> = {
      [Department.Billing]: 'Invoices and payments',
      [Department.Technical]: 'Outages and bugs',
    };
    expect(Classification.of('Which team?', descriptions).criteria()).toEqual([
      ['billing', 'Invoices and payments'],
      ['technical', 'Outages and bugs'],
    ]);
  });

  it('non-string labels (numeric enum values) are refused', () => {
    expect(() => Classification.of('How many?', Object.values(Stars) as never)).toThrow(
      /labels must be strings; label 2 is number 1/,
    );
    expect(() => Classification.of('How many?', Stars as never)).toThrow(InvalidQuestion);
  });

  it('a description that is neither a string nor null is refused', () => {
    expect(() => Classification.of('Which?', { a: 1, b: null } as never)).toThrow(/description of .*"a"/);
  });

  it('labels that are neither a list nor a map are refused', () => {
    expect(() => Classification.of('Which?', 'billing' as never)).toThrow(/a list or a label → description map/);
  });

  it('orNone() returns a copy that offers the option none, last, with its description', () => {
    const closed = Classification.of('Which team?', { billing: 'Invoices', technical: null });
    const open = closed.orNone();
    expect(open).not.toBe(closed);
    expect(open.allowsNone).toBe(true);
    expect(open.labels).toEqual(['billing', 'technical']);
    expect(open.options()).toEqual(['billing', 'technical', NONE_LABEL]);
    expect(open.criteria()).toEqual([
      ['billing', 'Invoices'],
      ['technical', null],
      ['none', 'None of the options fits the evidence'],
    ]);
    expect(closed.allowsNone).toBe(false);
    expect(closed.options()).toEqual(['billing', 'technical']);
  });

  it('none is reserved as a label when orNone() is used (but allowed without it)', () => {
    expect(Classification.of('Which?', ['some', 'none']).labels).toEqual(['some', 'none']);
    expect(() => Classification.of('Which?', ['some', 'none']).orNone()).toThrow(InvalidQuestion);
    expect(() => Classification.of('Which?', { some: null, none: 'Nothing' }).orNone()).toThrow(/"none" is reserved/);
  });

  it('orNone() counts none as an option: 254 labels accepted, 255 refused', () => {
    expect(Classification.of('Which?', labels(254)).orNone().options()).toHaveLength(255);
    expect(() => Classification.of('Which?', labels(255)).orNone()).toThrow(/at most 255 options.*255 labels given/);
  });

  it('a Classification is frozen', () => {
    const question = Classification.of('Which?', ['a', 'b']).orNone();
    expect(Object.isFrozen(question)).toBe(true);
    expect(Object.isFrozen(question.labels)).toBe(true);
  });
});
