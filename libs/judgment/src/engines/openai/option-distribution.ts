/** One entry of a Chat Completions `top_logprobs` list: a token, its log-probability, its id when the server sends one. */
export interface TokenLogprob {
  readonly token: string;
  readonly logprob: number;
  /** The token's id in the model's vocabulary (llama.cpp's server sends it; OpenAI does not). */
  readonly id?: number;
}

/**
 * Option letters that are also English words a model starts a sentence with ("A …", "I …"): mass on them may be an
 * answer or the start of a chat. Folded (lower case), as `foldToken` gives them.
 */
export const WORD_LETTERS: ReadonlySet<string> = new Set(['a', 'i']);

/** The answer tokens' share of the model's first output token, read from its top log-probabilities. */
export interface OptionDistribution {
  /** Probability of each option, in the order asked; sums to 1. */
  readonly probabilities: readonly number[];
  /** Raw probability mass on each option's token (spelling variants summed), before normalising or scaling. */
  readonly masses: readonly number[];
  /** Total mass on the option tokens: how much of the model's answer fell on the options at all. */
  readonly coverage: number;
  /**
   * The options none of whose spellings is in the list (read as 0), with what is known of them: each of their tokens
   * is `below` the last listed token's probability, and together they hold `atMost` what the list leaves (1 − its
   * sum). Null when every option is listed.
   */
  readonly unlisted: UnlistedOptions | null;
}

/** Options absent from a top_logprobs list, and the bounds on their mass. */
export interface UnlistedOptions {
  /** Their positions in option order. */
  readonly options: readonly number[];
  readonly below: number;
  readonly atMost: number;
}

/** Log-probabilities at or below this are placeholders (some providers send −9999 for every token but the top). */
export const PLACEHOLDER_LOGPROB = -1000;
/** How far past 1 a top_logprobs list may sum (rounding) before it is refused as not a distribution. */
export const SUM_TOLERANCE = 0.01;

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
 * The entries with each token once: told apart by id where the server sends ids (distinct tokens may render as the
 * same string, as llama.cpp renders special tokens `""`), else by their text; a token listed twice counts once.
 */
export function distinctEntries(entries: readonly TokenLogprob[]): TokenLogprob[] {
  const seen = new Set<string | number>();
  return entries.filter(({ token, id }) => {
    const identity = id ?? `text:${token}`;
    if (seen.has(identity)) return false;
    seen.add(identity);
    return true;
  });
}

/**
 * Each option's share of the probability mass the top log-probabilities put on the option tokens. `options` are the
 * answer tokens asked for (folded with `foldToken`, so they must be distinct once folded). Entries count once each
 * (`distinctEntries`). Temperature scaling, when `temperature` is given, raises each option's mass to 1/T before
 * normalising. Returns null when no mass at all fell on the options; the caller decides what coverage is enough.
 */
export function optionDistribution(
  entries: readonly TokenLogprob[],
  options: readonly string[],
  temperature: number | null = null,
): OptionDistribution | null {
  const index = new Map(options.map((option, position) => [foldToken(option), position]));
  const masses = options.map(() => 0);
  const listed = options.map(() => false);
  const distinct = distinctEntries(entries);
  for (const { token, logprob } of distinct) {
    const position = index.get(foldToken(token));
    if (position === undefined) continue;
    masses[position] += Math.exp(logprob);
    listed[position] = true;
  }
  const coverage = masses.reduce((sum, mass) => sum + mass, 0);
  if (!(coverage > 0)) return null;
  const absent = listed.flatMap((seen, position) => (seen ? [] : [position]));
  const unlisted =
    absent.length === 0
      ? null
      : {
          options: absent,
          below: Math.min(...distinct.map(({ logprob }) => Math.exp(logprob))),
          atMost: Math.max(0, 1 - listedMass(distinct)),
        };
  return { probabilities: scaledShares(masses, temperature), masses, coverage: Math.min(coverage, 1), unlisted };
}

/** The probability the entries hold together, each token once (`distinctEntries`). */
export function listedMass(entries: readonly TokenLogprob[]): number {
  return distinctEntries(entries).reduce((sum, { logprob }) => sum + Math.exp(logprob), 0);
}

/**
 * The word-letter check of a Classification asked with letters: when an option letter that is also a word (`A`, `I`)
 * carries mass, the share of the rest of the first token (what is not on a word letter) that falls on single letters.
 * A model answering in letters puts that rest on other letters; a model that wants to chat puts it on words ("The",
 * "Based", "Sorry"). Null when no option word letter carries mass: there is nothing in doubt.
 */
export function letterShare(entries: readonly TokenLogprob[], options: readonly string[]): number | null {
  const words = new Set(options.map(foldToken).filter((option) => WORD_LETTERS.has(option)));
  let onWords = 0;
  let onLetters = 0;
  let elsewhere = 0;
  for (const { token, logprob } of distinctEntries(entries)) {
    const folded = foldToken(token);
    const mass = Math.exp(logprob);
    if (WORD_LETTERS.has(folded)) onWords += words.has(folded) ? mass : 0;
    else if (/^[a-z]$/.test(folded)) onLetters += mass;
    else elsewhere += mass;
  }
  if (!(onWords > 0)) return null;
  return onLetters + elsewhere > 0 ? onLetters / (onLetters + elsewhere) : 0;
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
