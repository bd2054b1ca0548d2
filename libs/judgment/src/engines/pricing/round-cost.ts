import {
  EngineBudgetExhausted,
  EngineOverloaded,
  EngineRateLimited,
  EngineRejectedRequest,
  EngineUnauthorized,
  MalformedEngineResponse,
} from '../../errors';
import type { ResolvedPrice } from './connection-price';

/** Decimal places a cost is rounded to (a millionth of a millionth of the currency's unit). */
export const COST_DECIMALS = 12;

/**
 * What a round paid for: the token counts the Engine reported (null when it reported none) and the paid requests
 * (2xx answers; a 429 or 5xx retried by the driver is not paid). `unknown` when the round failed in a way that may
 * or may not have been billed (a timeout, a dropped connection): then no cost is made up.
 */
export type PaidRound =
  | {
      readonly kind: 'paid';
      readonly inputTokens: number | null;
      readonly outputTokens: number | null;
      readonly requests: number;
    }
  | { readonly kind: 'unknown'; readonly reason: string };

/** A round that sent nothing, or was refused without being billed. */
export const NOTHING_PAID: PaidRound = Object.freeze({ kind: 'paid', inputTokens: 0, outputTokens: 0, requests: 0 });

/**
 * What an answered round paid for, from its usage report (`input_tokens`, `output_tokens`, and `requests` when the
 * driver sends several per round, as `openai` does; else one). A count that is not a whole number ≥ 0 is unknown.
 */
export function paidUsage(usage: unknown): PaidRound {
  const report = usage !== null && typeof usage === 'object' ? (usage as Record<string, unknown>) : {};
  return {
    kind: 'paid',
    inputTokens: count(report.input_tokens),
    outputTokens: count(report.output_tokens),
    requests: count(report.requests) ?? 1,
  };
}

/** Failures that are refusals: the provider answered with an error status (not billed), or nothing was sent. */
const UNBILLED_FAILURES = [
  EngineRateLimited,
  EngineOverloaded,
  EngineRejectedRequest,
  EngineUnauthorized,
  EngineBudgetExhausted,
];

/**
 * What a round that returned no response paid for: the usage of the 2xx answers the driver says it was paid for
 * (`error.usage`: a rejected answer, or the answered Questions of a failed round), else one answer without counts for
 * a malformed response; nothing for a refusal (429, 529, 4xx, a spent budget, a rate limit with nothing sent);
 * unknown for anything else (a timeout or a dropped connection may still have been billed).
 */
export function paidForFailure(error: unknown): PaidRound {
  const usage = (error as { usage?: unknown } | null)?.usage;
  if (usage !== null && usage !== undefined && typeof usage === 'object') return paidUsage(usage);
  if (error instanceof MalformedEngineResponse)
    return { kind: 'paid', inputTokens: null, outputTokens: null, requests: 1 };
  if (UNBILLED_FAILURES.some((type) => error instanceof type)) return NOTHING_PAID;
  const type = error instanceof Error ? error.constructor.name : typeof error;
  return {
    kind: 'unknown',
    reason: `The round failed without an answer (${type}): whether the provider billed it is unknown.`,
  };
}

/** Two rounds' payments together (unknown when either is). */
export function addPaid(a: PaidRound, b: PaidRound): PaidRound {
  if (a.kind === 'unknown') return a;
  if (b.kind === 'unknown') return b;
  const sum = (x: number | null, y: number | null) => (x === null || y === null ? null : x + y);
  return {
    kind: 'paid',
    inputTokens: sum(a.inputTokens, b.inputTokens),
    outputTokens: sum(a.outputTokens, b.outputTokens),
    requests: a.requests + b.requests,
  };
}

/** How a record's cost was reached (kept with the record as `cost_basis`), or why it has none. */
export interface CostBasis {
  readonly connection: string;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly requests: number | null;
  /** The connection's price when the round was paid; null when it declares none. */
  readonly price: ResolvedPrice | null;
  /** Why the cost is null, or what the figure covers besides a round asked now (a cache hit, an earlier round). */
  readonly note: string | null;
}

/** A round's cost in the connection's currency, rounded to COST_DECIMALS places; null (with why) when unknown. */
export interface RoundCost {
  readonly amount: number | null;
  readonly currency: string | null;
  readonly basis: CostBasis;
}

/**
 * The cost of what a round paid for at the connection's price: input tokens × inputPerMillion / 1,000,000, plus
 * output tokens × outputPerMillion / 1,000,000, plus requests × perRequest. Null, never guessed, when the connection
 * declares no price, when the round's payment is unknown, or when a figure the price charges for (a token count) was
 * not reported; a figure priced at 0 needs no count.
 */
export function roundCost(
  connection: string,
  price: ResolvedPrice | null,
  paid: PaidRound,
  note: string | null = null,
): RoundCost {
  const counts =
    paid.kind === 'paid'
      ? { inputTokens: paid.inputTokens, outputTokens: paid.outputTokens, requests: paid.requests }
      : { inputTokens: null, outputTokens: null, requests: null };
  const basis = (why: string | null): CostBasis => ({ connection, ...counts, price, note: why ?? note });
  if (price === null) {
    return {
      amount: null,
      currency: null,
      basis: basis(`The connection "${connection}" declares no price (engines.${connection}.price).`),
    };
  }
  const unknown = (why: string): RoundCost => ({ amount: null, currency: price.currency, basis: basis(why) });
  if (paid.kind === 'unknown') return unknown(paid.reason);
  const charged: Array<[number | null, number | null, number, string]> = [
    [price.inputPerMillion, paid.inputTokens, 1_000_000, 'input token count'],
    [price.outputPerMillion, paid.outputTokens, 1_000_000, 'output token count'],
    [price.perRequest, paid.requests, 1, 'request count'],
  ];
  let amount = 0;
  for (const [figure, quantity, per, what] of charged) {
    if (figure === null || figure === 0) continue;
    if (quantity === null) {
      return unknown(
        `The round reported no ${what}, and engines.${connection}.price charges for it: no cost is made up.`,
      );
    }
    amount += (quantity * figure) / per;
  }
  return { amount: roundedCost(amount), currency: price.currency, basis: basis(null) };
}

/** A cost rounded to COST_DECIMALS decimal places (so 7 tokens at 0.3 per million is 0.0000021, not 0.0000021000000000000002). */
export function roundedCost(amount: number): number {
  return Number(amount.toFixed(COST_DECIMALS));
}

function count(value: unknown): number | null {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : null;
}
