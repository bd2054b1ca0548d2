import { Rating } from 'nestjs-judgment';
import { InvalidQuestion } from 'nestjs-judgment/testing';

const levels = (n: number) => Array.from({ length: n }, (_, i) => `Level ${i}`);

describe('Rating', () => {
  it('keeps its text and its levels, lowest first', () => {
    const rating = Rating.of('How severe?', ['Mild', 'Serious', 'Critical']);
    expect(rating.kind).toBe('rating');
    expect(rating.text).toBe('How severe?');
    expect(rating.levels).toEqual(['Mild', 'Serious', 'Critical']);
  });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['whitespace-only', '\t'],
    ['not a string', 7],
  ])('blank text is refused: %s', (_, text) => {
    expect(() => Rating.of(text as string, levels(3))).toThrow(InvalidQuestion);
    expect(() => Rating.of(text as string, levels(3))).toThrow(/A Rating needs its text/);
  });

  it('2 and 10 levels are accepted', () => {
    expect(Rating.of('How much?', levels(2)).levels).toHaveLength(2);
    expect(Rating.of('How much?', levels(10)).levels).toHaveLength(10);
  });

  it('1 and 11 levels are refused', () => {
    expect(() => Rating.of('How much?', levels(1))).toThrow(/2 to 10 levels; 1 given/);
    expect(() => Rating.of('How much?', levels(11))).toThrow(/2 to 10 levels; 11 given/);
  });

  it('a blank level is refused', () => {
    expect(() => Rating.of('How much?', ['Low', '  ', 'High'])).toThrow(InvalidQuestion);
    expect(() => Rating.of('How much?', ['Low', '  ', 'High'])).toThrow(/level 1 needs a description/);
    expect(() => Rating.of('How much?', ['Low', 2 as never])).toThrow(/level 1 needs a description/);
  });

  it('levels that are not a list are refused', () => {
    expect(() => Rating.of('How much?', 'Low, High' as never)).toThrow(/list of level descriptions/);
  });

  it('the levels are a frozen copy: changing the given list later changes nothing', () => {
    const given = ['Low', 'High'];
    const rating = Rating.of('How much?', given);
    given.push('Higher');
    expect(rating.levels).toEqual(['Low', 'High']);
    expect(Object.isFrozen(rating.levels)).toBe(true);
  });
});
