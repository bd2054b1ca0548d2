import { Likelihood } from 'nestjs-judgment';
import { InvalidQuestion } from 'nestjs-judgment/testing';

describe('Likelihood', () => {
  it('Likelihood.that() keeps its text, with no criteria', () => {
    const likelihood = Likelihood.that('Is this refund request an attempt to abuse the refund policy?');
    expect(likelihood.kind).toBe('likelihood');
    expect(likelihood.text).toBe('Is this refund request an attempt to abuse the refund policy?');
    expect(likelihood.criteria).toBeNull();
  });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['whitespace-only', ' \n\t '],
    ['not a string', undefined],
  ])('blank text is refused: %s', (_, text) => {
    expect(() => Likelihood.that(text as string)).toThrow(InvalidQuestion);
    expect(() => Likelihood.that(text as string)).toThrow(/A Likelihood needs its text/);
  });

  it('means() returns a new copy with the criteria; the original is unchanged', () => {
    const original = Likelihood.that('Is it abuse?');
    const explained = original.means({ true: 'Not entitled', false: 'Good faith' });
    expect(explained).not.toBe(original);
    expect(explained.text).toBe('Is it abuse?');
    expect(explained.criteria).toEqual({ true: 'Not entitled', false: 'Good faith' });
    expect(original.criteria).toBeNull();
  });

  it.each<[string, unknown]>([
    ['a blank true side', { true: ' ', false: 'Good faith' }],
    ['a missing true side', { false: 'Good faith' }],
    ['a blank false side', { true: 'Not entitled', false: '' }],
    ['a non-string false side', { true: 'Not entitled', false: 0 }],
    ['no object at all', null],
  ])('means() validates both sides: %s is refused', (_, meaning) => {
    expect(() => Likelihood.that('Is it abuse?').means(meaning as never)).toThrow(InvalidQuestion);
  });

  it('a Likelihood and its criteria are frozen', () => {
    const explained = Likelihood.that('Is it abuse?').means({ true: 'Not entitled', false: 'Good faith' });
    expect(Object.isFrozen(explained)).toBe(true);
    expect(Object.isFrozen(explained.criteria)).toBe(true);
  });
});
