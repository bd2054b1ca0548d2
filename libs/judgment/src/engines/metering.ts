import type { Provenance } from '../assessment/provenance';
import { EngineBudgetExhausted, EngineCallInterrupted, EngineFailed } from '../errors';
import type { Question } from '../questions/question';
import type { Engine, EngineRequest, EngineResponse } from './engine.interface';

/** Whether an Engine call's error may carry the usage of 2xx answers it was paid for (`error.usage`), to be metered. */
export function carriesUsage(error: unknown): error is EngineFailed | EngineCallInterrupted {
  return error instanceof EngineFailed || error instanceof EngineCallInterrupted;
}

/** Input tokens spent per connection in this process, and the model that answered last. */
export class UsageMeter {
  private readonly spent = new Map<string, number>();
  private lastAnswered: string | null = null;

  /** Counts one answer: its `usage.input_tokens` (when a whole number ≥ 0) and its model. */
  record(connection: string, provenance: Provenance | undefined): void {
    // A response without Provenance is the Judge's to reject as malformed; only well-formed ones are metered.
    if (!provenance?.details) return;
    this.spend(connection, provenance.details.usage);
    this.lastAnswered = provenance.model;
  }

  /**
   * Counts the `input_tokens` of a usage report. A negative, fractional or non-numeric count is ignored: a hostile
   * or broken Engine must not be able to refill a budget.
   */
  spend(connection: string, usage: unknown): void {
    const tokens = (usage as { input_tokens?: unknown } | null | undefined)?.input_tokens;
    if (Number.isSafeInteger(tokens) && (tokens as number) >= 0) {
      this.spent.set(connection, this.usage(connection) + (tokens as number));
    }
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
 * A connection's Engine behind its budget: at the ceiling it refuses without asking (EngineBudgetExhausted); every
 * answer is counted by the meter. Requests in flight count against the budget too, at the size of the last answer
 * (until a first answer gives that size, one request is asked at a time), so concurrent calls cannot all slip under
 * the ceiling at once.
 */
export class MeteredEngine implements Engine {
  private inFlight = 0;
  /** Input tokens of the last answer: what a request in flight is expected to spend. */
  private lastSpend: number | null = null;
  private readonly waiting: Array<() => void> = [];

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

  /** Whether the driver's answers are written in advance (see Engine.scripted). */
  get scripted(): boolean {
    return this.engine.scripted === true;
  }

  /** The driver's refusals (none when the driver declares no `refusals`). */
  refusals(questions: ReadonlyMap<string, Question>): readonly string[] {
    return this.engine.refusals?.(questions) ?? [];
  }

  async answer(request: EngineRequest): Promise<EngineResponse> {
    if (this.budget !== null) await this.reserve(this.budget);
    const before = this.meter.usage(this.connection);
    try {
      const response = await this.engine.answer(request);
      this.meter.record(this.connection, response?.provenance);
      this.lastSpend = this.meter.usage(this.connection) - before;
      return response;
    } catch (error) {
      // A rejected 2xx answer (or an answered part of a failed round) was paid for: it counts against the budget too.
      if (carriesUsage(error) && error.usage) {
        this.meter.spend(this.connection, error.usage);
        this.lastSpend = this.meter.usage(this.connection) - before;
      }
      throw error;
    } finally {
      if (this.budget !== null) this.release();
    }
  }

  private async reserve(budget: number): Promise<void> {
    while (this.lastSpend === null && this.inFlight > 0) await new Promise<void>((wake) => this.waiting.push(wake));
    const used = this.meter.usage(this.connection);
    const reserved = this.inFlight * (this.lastSpend ?? 0);
    if (used + reserved >= budget) {
      throw new EngineBudgetExhausted(
        `The Engine connection "${this.connection}" has spent its budget: ${used} input tokens used` +
          (reserved > 0 ? ` and about ${reserved} in requests under way` : '') +
          ` of ${budget} allowed in this process, so nothing was sent. Raise engines.${this.connection}.budget ` +
          '(JUDGMENT_BUDGET), or set it to null for no limit; the count starts again when the process restarts.',
      );
    }
    this.inFlight += 1;
  }

  private release(): void {
    this.inFlight -= 1;
    for (const wake of this.waiting.splice(0)) wake();
  }
}
