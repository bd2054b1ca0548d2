import { JudgmentError } from './judgment.error';

/**
 * The Questions of a round an Engine answered before the round failed (a driver that asks one request per Question):
 * paid for, so the Judge records them with the failure and a retry of the same Judgment asks only the others.
 */
export interface AnsweredBeforeFailure {
  /** By asked key (a Likelihood Set's labels as `set.label`), as an Engine answers them. */
  readonly answers: Readonly<Record<string, number | Readonly<Record<string, number>> | readonly number[]>>;
  /** Where they came from: the connection, the model that answered, the request id and the details. */
  readonly provenance: {
    readonly engine: string;
    readonly model: string;
    readonly requestId: string | null;
    readonly details: Readonly<Record<string, unknown>>;
    /** The model of each Question, when the Engine reports one per Question. */
    readonly questionModels?: Readonly<Record<string, string>>;
  };
  /** The record that holds them with the failure, once the Judge recorded it (null when nothing was written). */
  readonly record?: number | null;
}

/** The Engine could not produce an Assessment. Every Engine failure is (a subclass of) this. */
export class EngineFailed extends JudgmentError {
  /** The Engine's request id, when the failure happened after the Engine answered with one. */
  readonly requestId: string | null;
  /**
   * Token counts of the 2xx answers the failed call was paid for (a rejected answer, or the answered Questions of a
   * round another Question failed), set by the driver to be metered; null when none.
   */
  usage: Readonly<Record<string, number>> | null = null;
  /**
   * The Questions the round had answered before it failed, with their Provenance, set by the driver (the `openai`
   * driver asks one request per Question); null when none. The Judge, once it recorded the failure, sets it to every
   * answer of the Judgment paid for so far (an earlier round's included) and the record that holds them.
   */
  answered: AnsweredBeforeFailure | null = null;

  constructor(message: string, options?: { cause?: unknown; requestId?: string | null }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.requestId = options?.requestId ?? null;
  }

  /** Wraps an error thrown while asking the Engine for the named Judgment. */
  static wrap(judgment: string, error: unknown): EngineFailed {
    if (error instanceof EngineFailed) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new EngineFailed(`The Engine failed to assess ${judgment}: ${message}`, { cause: error });
  }
}

/** The Engine answered, but its response could not be read (or left Questions unanswered). */
export class MalformedEngineResponse extends EngineFailed {}
/** The Engine refused the request as invalid (HTTP 400/422), or the connection refused it before asking. */
export class EngineRejectedRequest extends EngineFailed {}
/** The Engine refused the credentials (HTTP 401/403). */
export class EngineUnauthorized extends EngineFailed {}
/**
 * The Engine rate-limited the request (HTTP 429) after every retry, or the connection's `limits` had no slot within
 * `limiter.maxWait` (then nothing was sent). `retryAfterMs` says when a slot is expected, when known.
 */
export class EngineRateLimited extends EngineFailed {
  readonly retryAfterMs: number | null;

  constructor(message: string, options?: { cause?: unknown; requestId?: string | null; retryAfterMs?: number | null }) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }
}

/**
 * Not a failure: a queued job's Engine call was refused by the connection's rate limit (its own, or the Engine's
 * 429) and nothing was answered. The assess processor puts the job back and pauses the queue for `retryAfterMs`;
 * the Judge neither records nor announces it. Thrown only inside `deferRateLimits()`.
 */
export class EngineRateLimitDeferred extends JudgmentError {
  constructor(
    message: string,
    /** Milliseconds until the connection expects to accept a request again. */
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}
/** The Engine was overloaded (HTTP 529) after every retry. */
export class EngineOverloaded extends EngineFailed {}
/** The connection's token budget is spent: no request was sent. */
export class EngineBudgetExhausted extends EngineFailed {}

/**
 * The app began shutting down while an Engine request waited to be retried (after a 429/529): the wait was cancelled
 * and nothing more was sent or recorded. Not an Engine failure: a queued job is left for another worker.
 */
export class EngineCallInterrupted extends JudgmentError {
  /** Token counts of the round's Questions answered before the wait was cancelled (paid for), to be metered. */
  usage: Readonly<Record<string, number>> | null = null;
}

/** A connection or driver is missing or misconfigured. A configuration error, not a failed attempt. */
export class EngineNotConfigured extends JudgmentError {}

/** An alias model in production without allowAliases. A configuration error, not a failed attempt. */
export class UnpinnedModel extends JudgmentError {}
