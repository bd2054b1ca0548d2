import { Decision } from './decision.decorator';
import { decisionThresholds, withThresholds } from './thresholds';

enum Verdict {
  Yes = 'yes',
  No = 'no',
}

@Decision({ outcomes: Verdict })
class WithThresholds {
  readonly thresholds = { yes: 0.7 };
  decide(): Verdict {
    return this.thresholds.yes > 0.5 ? Verdict.Yes : Verdict.No;
  }
}

@Decision({ outcomes: Verdict })
class WithoutThresholds {
  decide(): Verdict {
    return Verdict.No;
  }
}

@Decision({ outcomes: Verdict })
class BrokenThresholds {
  readonly thresholds = { yes: Number.NaN };
  decide(): Verdict {
    return Verdict.No;
  }
}

describe('Decision thresholds', () => {
  it('reads the declared thresholds, or null when none are declared', () => {
    expect(decisionThresholds(new WithThresholds())).toEqual({ yes: 0.7 });
    expect(decisionThresholds(new WithoutThresholds())).toBeNull();
  });

  it('refuses a threshold that is not a finite number, naming it', () => {
    expect(() => decisionThresholds(new BrokenThresholds())).toThrow(/BrokenThresholds\.thresholds\.yes .*finite/);
  });

  it('copies a Decision with other values, leaving the original alone', () => {
    const original = new WithThresholds();
    const candidate = withThresholds(original, { yes: 0.4 });
    expect(candidate).toBeInstanceOf(WithThresholds);
    expect(candidate.decide()).toBe(Verdict.No);
    expect(original.decide()).toBe(Verdict.Yes);
  });

  it('refuses values that do not name exactly the declared thresholds', () => {
    expect(() => withThresholds(new WithThresholds(), { no: 0.4 })).toThrow(/must name exactly yes; got no/);
    expect(() => withThresholds(new WithoutThresholds(), { yes: 0.4 })).toThrow(/declares no thresholds/);
  });
});
