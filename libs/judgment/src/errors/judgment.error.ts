/** Base class of every error this package throws; `name` is always the concrete class name. */
export abstract class JudgmentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
