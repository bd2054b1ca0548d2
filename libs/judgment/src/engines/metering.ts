import type { Provenance } from '../assessment/provenance';
import { EngineBudgetExhausted } from '../errors';
import type { Engine, EngineRequest, EngineResponse } from './engine.interface';

/** Input tokens spent per connection in this process, and the model that answered last. */
export class UsageMeter {
  private readonly spent = new Map<string, number>();
  private lastAnswered: string | null = null;

  /** Counts one answer: its `usage.input_tokens` (when a number) and its model. */
  record(connection: string, provenance: Provenance | undefined): void {
    // A response without Provenance is the Judge's to reject as malformed; only well-formed ones are metered.
    if (!provenance?.details) return;
    const tokens = (provenance.details.usage as { input_tokens?: unknown } | null | undefined)?.input_tokens;
    if (typeof tokens === 'number' && Number.isFinite(tokens)) {
      this.spent.set(connection, this.usage(connection) + tokens);
    }
    this.lastAnswered = provenance.model;
  }

  /** Input tokens spent on one connection, or on all of them. */
  usage(connection?: string): number {
    if (connection !== undefined) return this.spent.get(connection) ?? 0;
    let total = 0;
    for (const tokens of this.spent.values()) total += tokens;
    return total;
  }

  /** The versioned model id that answered last, on any connection; null before the first answer. */
  lastModel(): string | null {
    return this.lastAnswered;
  }
}

/**
 * A connection's Engine behind its budget: at the ceiling it refuses without asking (EngineBudgetExhausted);
 * every answer is counted by the meter.
 */
export class MeteredEngine implements Engine {
  constructor(
    /** The connection name. */
    readonly connection: string,
    /** The driver's Engine. */
    readonly engine: Engine,
    private readonly budget: number | null,
    private readonly meter: UsageMeter,
  ) {}

  model(): string {
    return this.engine.model();
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    const used = this.meter.usage(this.connection);
    if (this.budget !== null && used >= this.budget) {
      throw new EngineBudgetExhausted(
        `The Engine connection "${this.connection}" has spent its budget: ${used} input tokens used of ` +
          `${this.budget} allowed in this process, so nothing was sent. Raise engines.${this.connection}.budget ` +
          '(JUDGMENT_BUDGET), or set it to null for no limit; the count starts again when the process restarts.',
      );
    }
    const response = await this.engine.answer(request);
    this.meter.record(this.connection, response?.provenance);
    return response;
  }
}
