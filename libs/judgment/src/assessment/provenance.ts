/** Which Engine, model and request produced an Assessment. */
export class Provenance {
  /** The Engine's own details: `usage`, `confidence` (the Engine's, per question; audit only), `response` (raw body). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    /** The connection name (e.g. `jev`, `laya`), or `fake` / `mock`. */
    readonly engine: string,
    /** The versioned model id the Engine reported. */
    readonly model: string,
    readonly requestId: string | null = null,
    details: Record<string, unknown> = {},
  ) {
    this.details = Object.freeze({ ...details });
    Object.freeze(this);
  }

  logContext(): { engine: string; model: string; request_id: string | null } {
    return { engine: this.engine, model: this.model, request_id: this.requestId };
  }
}
