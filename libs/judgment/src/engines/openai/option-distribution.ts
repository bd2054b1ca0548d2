/** One entry of a Chat Completions `top_logprobs` list: a token and its log-probability. */
export interface TokenLogprob {
  readonly token: string;
  readonly logprob: number;
}

/** The answer tokens' share of the model's first output token, read from its top log-probabilities. */
export interface OptionDistribution {
  /** Probability of each option, in the order asked; sums to 1. */
  readonly probabilities: readonly number[];
  /** Raw probability mass on each option's token (spelling variants summed), before normalising or scaling. */
  readonly masses: readonly number[];
  /** Total mass on the option tokens: how much of the model's answer fell on the options at all. */
  readonly coverage: number;
}

/**
 * A token as an option answer: surrounding whitespace (also the tokenizers' space markers `Ġ` and `▁`) and trailing
 * `.`, `)` or `:` removed, case folded. ` Yes`, `yes`, `YES.` and `▁yes` all read as `yes`; ` B)` as `b`.
 */
export function foldToken(token: string): string {
  return token
    .replace(/^[\s\u0120\u2581]+/u, '')
    .replace(/[\s\u0120\u2581.):]+$/u, '')
    .toLowerCase();
}

/**
 * Each option's share of the probability mass the top log-probabilities put on the option tokens. `options` are the
 * answer tokens asked for (folded with `foldToken`, so they must be distinct once folded). A token listed twice counts
 * once. Temperature scaling, when `temperature` is given, raises each option's mass to 1/T before normalising.
 * Returns null when no mass at all fell on the options; the caller decides what coverage is enough.
 */
export function optionDistribution(
  entries: readonly TokenLogprob[],
  options: readonly string[],
  temperature: number | null = null,
): OptionDistribution | null {
  const index = new Map(options.map((option, position) => [foldToken(option), position]));
  const masses = options.map(() => 0);
  const seen = new Set<string>();
  for (const { token, logprob } of entries) {
    if (seen.has(token)) continue;
    seen.add(token);
    const position = index.get(foldToken(token));
    if (position !== undefined) masses[position] += Math.exp(logprob);
  }
  const coverage = masses.reduce((sum, mass) => sum + mass, 0);
  if (!(coverage > 0)) return null;
  return { probabilities: scaledShares(masses, temperature), masses, coverage: Math.min(coverage, 1) };
}

/**
 * Each mass's share of their sum (at least one mass above 0), after temperature scaling when `temperature` is given:
 * masses raised to 1/T, computed in log space relative to the largest so a small T cannot underflow every weight to 0.
 */
export function scaledShares(masses: readonly number[], temperature: number | null = null): number[] {
  const largest = Math.log(Math.max(...masses));
  const weights =
    temperature === null
      ? masses
      : masses.map((mass) => (mass > 0 ? Math.exp((Math.log(mass) - largest) / temperature) : 0));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
}
