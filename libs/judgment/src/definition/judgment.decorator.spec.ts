import { Decision, Judgment, Likelihood, judgmentName } from 'nestjs-judgment';
import { judgmentMetadata } from './judgment.decorator';
import { RefundAbuse, RefundDecision, RefundOutcome, aRefund } from '../testing/fixtures.spec-helpers';

const questions = () => ({ q: Likelihood.that('Is it?') });

describe('@Judgment()', () => {
  it('the name defaults to the class name', () => {
    @Judgment()
    class SpamCheck implements Judgment {
      evidence = () => ({});
      questions = questions;
    }
    expect(judgmentMetadata(SpamCheck).name).toBe('SpamCheck');
    expect(judgmentName(SpamCheck)).toBe('SpamCheck');
    expect(judgmentName(new SpamCheck())).toBe('SpamCheck');
  });

  it('an explicit name replaces the class name, for the class and its instances', () => {
    expect(judgmentMetadata(RefundAbuse).name).toBe('refund-abuse');
    expect(judgmentName(RefundAbuse)).toBe('refund-abuse');
    expect(judgmentName(new RefundAbuse(aRefund()))).toBe('refund-abuse');
  });

  it('the default Decision may be given as a class', () => {
    @Decision({ outcomes: RefundOutcome })
    class Lenient {
      decide = () => RefundOutcome.Approve;
    }
    @Judgment({ decision: Lenient })
    class WithClass {}
    expect(judgmentMetadata(WithClass).decision).toBe(Lenient);
  });

  it('the default Decision may be given as a thunk, resolved when read (for a Decision declared later)', () => {
    // RefundAbuse is declared with `decision: () => RefundDecision` before RefundDecision exists.
    expect(judgmentMetadata(RefundAbuse).decision).toBe(RefundDecision);
  });

  it('cacheFor and engine are kept as declared', () => {
    expect(judgmentMetadata(RefundAbuse)).toEqual({
      name: 'refund-abuse',
      decision: RefundDecision,
      cacheFor: 3600,
      engine: 'jev',
      maxEvidenceBytes: null,
      reviewSummary: null,
      cascade: null,
    });
  });

  it('omitted options are null (no Decision, no cache, the default connection)', () => {
    @Judgment({ name: 'bare' })
    class Bare {}
    expect(judgmentMetadata(Bare)).toEqual({
      name: 'bare',
      decision: null,
      cacheFor: null,
      engine: null,
      maxEvidenceBytes: null,
      reviewSummary: null,
      cascade: null,
    });
  });

  it('an undecorated class has its class name and no options', () => {
    class Plain {}
    expect(judgmentMetadata(Plain)).toEqual({
      name: 'Plain',
      decision: null,
      cacheFor: null,
      engine: null,
      maxEvidenceBytes: null,
      reviewSummary: null,
      cascade: null,
    });
  });

  it.each([
    ['a blank name', { name: '  ' }, /name/],
    ['a non-string name', { name: 42 }, /name/],
    ['a negative cacheFor', { cacheFor: -1 }, /cacheFor.*-1/],
    ['an infinite cacheFor', { cacheFor: Infinity }, /cacheFor/],
    ['a non-number cacheFor', { cacheFor: '3600' }, /cacheFor/],
    ['a blank engine', { engine: '' }, /engine/],
    ['a non-string engine', { engine: 1 }, /engine/],
    ['a decision that is not a class or a thunk', { decision: 'RefundDecision' }, /decision/],
    ['a maxEvidenceBytes of 0', { maxEvidenceBytes: 0 }, /maxEvidenceBytes.*0/],
    ['a fractional maxEvidenceBytes', { maxEvidenceBytes: 1.5 }, /maxEvidenceBytes/],
    ['a reviewSummary that is not a function', { reviewSummary: 'title' }, /reviewSummary.*function/],
  ])('invalid options are refused: %s', (_, options, message) => {
    expect(() => Judgment(options as never)).toThrow(message);
  });

  describe('an escalation cascade', () => {
    @Decision({ outcomes: RefundOutcome, review: [RefundOutcome.Escalate] })
    class Banded {
      readonly thresholds = { reject: 0.8, approve: 0.2 };
      decide = () => RefundOutcome.Approve;
    }

    it('keeps its tiers in order; the first tier is the connection asked first (`engine`)', () => {
      @Judgment({
        name: 'cascaded',
        decision: Banded,
        cascade: [{ connection: 'cheap', thresholds: { reject: 0.95 } }, { connection: 'strong' }],
      })
      class Cascaded {}
      expect(judgmentMetadata(Cascaded)).toMatchObject({
        engine: 'cheap',
        cascade: [{ connection: 'cheap', thresholds: { reject: 0.95 } }, { connection: 'strong' }],
      });
    });

    it('threshold names are typed by the Decision: a name it does not declare does not compile', () => {
      const options: Parameters<typeof Judgment<any, Banded>>[0] = {
        decision: Banded,
        // @ts-expect-error 'rejct' is not a threshold of Banded
        cascade: [{ connection: 'a', thresholds: { rejct: 1 } }],
      };
      expect(options?.cascade).toHaveLength(1);
    });

    it.each([
      ['a single tier', { decision: Banded, cascade: [{ connection: 'cheap' }] }, /at least two tiers/],
      ['no tiers', { decision: Banded, cascade: [] }, /at least two tiers/],
      ['no default Decision', { cascade: [{ connection: 'a' }, { connection: 'b' }] }, /needs a default Decision/],
      [
        'engine beside it',
        { decision: Banded, engine: 'a', cascade: [{ connection: 'a' }, { connection: 'b' }] },
        /remove engine/,
      ],
      [
        'a tier without a connection',
        { decision: Banded, cascade: [{ connection: 'a' }, { thresholds: {} }] },
        /tier 2 needs \{ connection/,
      ],
      [
        'the same connection twice',
        { decision: Banded, cascade: [{ connection: 'a' }, { connection: 'a' }] },
        /tier 2 names connection "a" again/,
      ],
      [
        'a threshold that is not a finite number',
        { decision: Banded, cascade: [{ connection: 'a', thresholds: { reject: '0.9' } }, { connection: 'b' }] },
        /tier 1 \("a"\) has thresholds.reject = 0.9: give a finite number/,
      ],
    ])('is refused at declaration, naming the Judgment and the tier: %s', (_, options, message) => {
      expect(() => Judgment({ name: 'cascaded', ...(options as object) })(class Cascaded {})).toThrow(message);
      expect(() => Judgment({ name: 'cascaded', ...(options as object) })(class Cascaded {})).toThrow(/cascaded/);
    });
  });
});
