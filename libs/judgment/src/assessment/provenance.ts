/** Which Engine, model and request produced an Assessment. */
export class Provenance {
  /** The Engine's own details: `usage`, `confidence` (the Engine's, per question; audit only), `response` (raw body). */
  readonly details: Readonly<Record<string, unknown>>;
  /**
   * The model that answered each Question, by question key, when the Engine reports one per Question (the `openai`
   * driver asks each Question in its own request); empty when `model` answered the whole round.
   */
  readonly questionModels: Readonly<Record<string, string>>;

  constructor(
    /** The connection name (e.g. `jev`, `laya`), or `fake` / `mock`. */
    readonly engine: string,
    /** The versioned model id the Engine reported (the first Question's when each Question has its own). */
    readonly model: string,
    readonly requestId: string | null = null,
    details: Record<string, unknown> = {},
    questionModels: Readonly<Record<string, string>> = {},
  ) {
    this.details = Object.freeze({ ...details });
    this.questionModels = Object.freeze({ ...questionModels });
    Object.freeze(this);
  }

  /** The model that answered the Question `key`. */
  modelOf(key: string): string {
    return Object.prototype.hasOwnProperty.call(this.questionModels, key) ? this.questionModels[key] : this.model;
  }

  /** Every model that answered in the round, `model` first, each once. */
  models(): string[] {
    return [...new Set([this.model, ...Object.values(this.questionModels)])];
  }

  logContext(): { engine: string; model: string; request_id: string | null } {
    return { engine: this.engine, model: this.model, request_id: this.requestId };
  }
}
