import { type AnswerSignal, SIGNAL_WINDOW, type SignalFigures } from '../lock/signal-figures';
import { NEAR_CERTAIN } from '../lock/signal-figures';

/** The most recent answers of one connection and model (at most `capacity`), with their figures kept up to date. */
export class SignalWindow {
  private readonly answers: AnswerSignal[] = [];
  private next = 0;
  private certain = 0;
  private entropy = 0;

  constructor(private readonly capacity = SIGNAL_WINDOW) {}

  /** Adds answers, the oldest falling out once the window is full. */
  add(signals: readonly AnswerSignal[]): void {
    for (const signal of signals) {
      if (this.answers.length === this.capacity) {
        this.forget(this.answers[this.next]);
        this.answers[this.next] = signal;
        this.next = (this.next + 1) % this.capacity;
      } else this.answers.push(signal);
      this.certain += signal.top > NEAR_CERTAIN ? 1 : 0;
      this.entropy += signal.entropy;
    }
  }

  /** The figures of the answers in the window; null before the first. */
  figures(): SignalFigures | null {
    const answers = this.answers.length;
    if (answers === 0) return null;
    // Summed as answers came and went: clamped against rounding drift.
    return { answers, certainShare: this.certain / answers, meanEntropy: Math.max(0, this.entropy / answers) };
  }

  private forget(signal: AnswerSignal): void {
    this.certain -= signal.top > NEAR_CERTAIN ? 1 : 0;
    this.entropy -= signal.entropy;
  }
}
