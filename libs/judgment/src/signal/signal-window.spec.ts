import { SignalWindow } from './signal-window';

describe('the signal window', () => {
  it('keeps the most recent answers only, with their figures', () => {
    const window = new SignalWindow(4);
    expect(window.figures()).toBeNull();
    window.add([
      { top: 0.6, entropy: 0.8 },
      { top: 0.7, entropy: 0.6 },
    ]);
    expect(window.figures()).toEqual({ answers: 2, certainShare: 0, meanEntropy: 0.7 });
    window.add(Array.from({ length: 5 }, () => ({ top: 0.9999, entropy: 0 })));
    // Seven answers in a window of four: the last four, all near-certain, remain.
    expect(window.figures()).toEqual({ answers: 4, certainShare: 1, meanEntropy: 0 });
    window.add([{ top: 0.5, entropy: 1 }]);
    expect(window.figures()).toEqual({ answers: 4, certainShare: 0.75, meanEntropy: expect.closeTo(0.25, 12) });
  });
});
