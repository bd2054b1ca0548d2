import { MalformedEngineResponse } from '../../errors';
import { redact, shorten, tokenCounts } from '../http/foreign-json';
import { describeOrigin, errorReason, type ResponseOrigin } from '../http/status-errors';
import { isObject, parseObject } from '../jev/jev.wire';
import {
  distinctEntries,
  letterShare,
  listedMass,
  optionDistribution,
  PLACEHOLDER_LOGPROB,
  SUM_TOLERANCE,
  type OptionDistribution,
  type TokenLogprob,
} from './option-distribution';

/** Tokens one answer reported (`prompt_tokens`, `completion_tokens`): whole numbers of 0 or more, else left out. */
export type TokenUsage = Readonly<{ input_tokens?: number; output_tokens?: number }>;

/** One Chat Completions answer read for one Question. */
export interface CompletionReading extends OptionDistribution {
  /** The model as the server named it (a versioned id when the server resolves aliases). */
  readonly model: string;
  /** The request id: the response's header when it had one, else the body's `id` (llama.cpp sends no header). */
  readonly requestId: string | null;
  readonly systemFingerprint: string | null;
  readonly usage: TokenUsage;
  /**
   * The word-letter check (`letterShare`) when the rules asked for it and an option `A` or `I` carried mass: the share
   * of the rest of the first token on letters; null otherwise.
   */
  readonly letterShare: number | null;
  /** True when that share is below `minCoverage`: the answer on `A`/`I` may be a chat's first word, ask again. */
  readonly inDoubt: boolean;
}

/** Longest model name or system fingerprint kept from a response. */
const MAX_NAME = 200;

/** What a completion is read against: the answer tokens asked for, the least coverage accepted, the temperature. */
export interface ReadingRules {
  readonly key: string;
  readonly tokens: readonly string[];
  readonly minCoverage: number;
  readonly temperature: number | null;
  /** Run the word-letter check: a Classification asked with letters that include `A` or `I`. */
  readonly wordLetters: boolean;
  /** How many `top_logprobs` entries were asked for: a server that returns fewer than the options caps its list. */
  readonly topLogprobs: number;
  /** Set when this is the Question asked again without `A` and `I`: the first answer's letter share, for messages. */
  readonly askedAgainAfter?: number;
}

/**
 * Reads a 2xx Chat Completions body strictly: exactly one choice, the first output token's `top_logprobs` — real
 * log-probabilities that sum to at most 1 — and enough of their mass on the answer tokens, none of the options left
 * out of the list where what it leaves could outweigh the likeliest. Throws MalformedEngineResponse naming the
 * connection, the request and what was wrong — never a guessed or uniform distribution — with the usage the answer
 * reported (it was paid for). `secret` (the API key) is blanked out of every string taken from the body, and those
 * strings are shortened.
 */
export function readCompletion(
  text: string,
  rules: ReadingRules,
  given: ResponseOrigin,
  secret: string | null = null,
): CompletionReading {
  const body = parseObject(redact(text, secret));
  const usage = completionUsage(body?.usage);
  const bodyId = typeof body?.id === 'string' && body.id !== '' ? shorten(body.id, MAX_NAME) : null;
  const origin = { ...given, requestId: given.requestId ?? bodyId };
  const fail = (reason: string) => {
    const error = new MalformedEngineResponse(
      `The answer to Question "${rules.key}" is unreadable (${describeOrigin(origin)}): ${reason}.`,
      { requestId: origin.requestId },
    );
    error.usage = usage;
    return error;
  };
  if (!body) throw fail('the body is not a JSON object (truncated, or not a Chat Completions server)');
  const { choices, model } = body;
  if (!Array.isArray(choices) || choices.length !== 1) {
    const count = Array.isArray(choices) ? `${choices.length} choices` : 'no "choices" list';
    throw fail(`it has ${count}, where 1 was asked (n: 1)`);
  }
  if (typeof model !== 'string' || model === '') throw fail('it names no model');
  const first = firstToken(choices[0], secret);
  if (first === null) {
    throw fail(
      'it carries no logprobs for the first output token. The server or model does not return top_logprobs; use one ' +
        'that does (OpenAI chat models, vLLM, llama.cpp server, recent Ollama)',
    );
  }
  if (typeof first === 'string') throw fail(first);
  const placeholder = first.find(({ logprob }) => logprob <= PLACEHOLDER_LOGPROB);
  if (placeholder) {
    throw fail(
      `its top_logprobs hold placeholder log-probabilities (${placeholder.logprob} for ` +
        `${JSON.stringify(shorten(placeholder.token, 40))}), not real ones: the server does not report the ` +
        'probabilities of its top tokens. Use a server or model that does',
    );
  }
  const total = listedMass(first);
  if (total > 1 + SUM_TOLERANCE) {
    const listed = distinctEntries(first)
      .slice(0, 5)
      .map(({ token, logprob }) => `${JSON.stringify(shorten(token, 40))} ${Math.exp(logprob).toFixed(3)}`)
      .join(', ');
    throw fail(
      `its top_logprobs are not a distribution: their probabilities sum to ${total.toFixed(3)} (${listed}), more ` +
        'than 1. The server reports something other than log-probabilities of the first token. Point the ' +
        "connection's url at a server and model that return real ones (OpenAI, vLLM, llama.cpp server), or fix " +
        `the proxy in between; \`judgment probe ${origin.connection}\` shows what the server sends`,
    );
  }
  const options = rules.tokens.length;
  if (first.length < options && first.length < rules.topLogprobs) {
    throw fail(
      `the server returned ${first.length} top_logprobs where ${rules.topLogprobs} were asked, fewer than the ` +
        `Question's ${options} options, so some options cannot be read: it caps the list. Offer at most ` +
        `${first.length} options to engines.${origin.connection}, or use a server that returns at least ${options}`,
    );
  }
  const distribution = optionDistribution(first, rules.tokens, rules.temperature);
  const coverage = distribution?.coverage ?? 0;
  if (distribution === null || coverage < rules.minCoverage) {
    const seen = first
      .slice(0, 5)
      .map((entry) => JSON.stringify(shorten(entry.token, 40)))
      .join(', ');
    const again =
      rules.askedAgainAfter === undefined
        ? ''
        : 'its first answer sat on the option letters A or I, which are also words a chatting model starts with, ' +
          `with only ${percent(rules.askedAgainAfter)} of the rest on letters; asked again lettered without them, `;
    throw fail(
      `${again}only ${percent(coverage)} of the first token's probability fell on the answers ` +
        `${rules.tokens.join(', ')} (at least ${percent(rules.minCoverage)} needed; the likeliest tokens were ` +
        `${seen || 'none'}). The model did not answer in the asked form; minCoverage sets the threshold`,
    );
  }
  const { unlisted, masses } = distribution;
  if (unlisted !== null && unlisted.atMost > Math.max(...masses)) {
    const likeliest = masses.indexOf(Math.max(...masses));
    throw fail(
      `its ${first.length} top_logprobs leave out the options ${unlisted.options.map((at) => rules.tokens[at]).join(', ')}, ` +
        `and the ${unlisted.atMost.toFixed(3)} of probability the list leaves could make one of them likelier than ` +
        `${rules.tokens[likeliest]} (${masses[likeliest].toFixed(3)}). Ask for more entries ` +
        `(engines.${origin.connection}.topLogprobs; the server returned ${first.length}), or offer fewer options`,
    );
  }
  const share = rules.wordLetters ? letterShare(first, rules.tokens) : null;
  const fingerprint = body.system_fingerprint;
  return {
    ...distribution,
    letterShare: share,
    inDoubt: share !== null && share < rules.minCoverage,
    model: shorten(redact(model, secret), MAX_NAME),
    requestId: origin.requestId,
    systemFingerprint:
      typeof fingerprint === 'string' && fingerprint !== '' ? shorten(redact(fingerprint, secret), MAX_NAME) : null,
    usage,
  };
}

/** The usage an answer reported, as input and output tokens; counts that are not whole numbers ≥ 0 are left out. */
function completionUsage(usage: unknown): TokenUsage {
  const counts = tokenCounts(usage) ?? {};
  return {
    ...(counts.prompt_tokens === undefined ? {} : { input_tokens: counts.prompt_tokens }),
    ...(counts.completion_tokens === undefined ? {} : { output_tokens: counts.completion_tokens }),
  };
}

/** The reason a Chat Completions server gave for an error: `error.message`, else the Jev shapes or the raw body. */
export function openAiErrorReason(body: string): string {
  const error = parseObject(body)?.error;
  const message = isObject(error) ? error.message : typeof error === 'string' ? error : undefined;
  return typeof message === 'string' && message.trim() !== '' ? message : errorReason(body);
}

/**
 * The first output token's top log-probabilities (tokens with `secret` blanked out), null when absent, or a phrase
 * saying what is wrong with them.
 */
function firstToken(choice: unknown, secret: string | null): TokenLogprob[] | string | null {
  if (!isObject(choice) || !isObject(choice.logprobs)) return null;
  const content = choice.logprobs.content;
  if (!Array.isArray(content) || content.length === 0 || !isObject(content[0])) return null;
  const top = content[0].top_logprobs;
  if (!Array.isArray(top) || top.length === 0) return null;
  const entries: TokenLogprob[] = [];
  for (const entry of top) {
    const { token, logprob, id } = (isObject(entry) ? entry : {}) as {
      token?: unknown;
      logprob?: unknown;
      id?: unknown;
    };
    if (typeof token !== 'string' || typeof logprob !== 'number' || !(logprob <= 1e-6)) {
      const held =
        typeof logprob === 'number' ? `a log-probability of ${logprob}` : `a ${describe(logprob)} log-probability`;
      return `its top_logprobs hold an entry with ${describe(token)} token and ${held}, not a token with a log-probability of 0 or less`;
    }
    const tokenId = typeof id === 'number' && Number.isSafeInteger(id) ? { id } : {};
    entries.push({ token: redact(token, secret), logprob: Math.min(logprob, 0), ...tokenId });
  }
  return entries;
}

/** What kind of JSON value `value` is, for an error message that must not quote foreign text. */
function describe(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  if (value === undefined) return 'no';
  if (value === null) return 'a null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/**
 * Whether a server answering as `served` serves the `pinned` model: the same name, or a dated snapshot of it (the
 * pinned name followed by nothing but a date: `-2024-08-06`, `-0613`, `-20240620`). Any other suffix is another
 * model (`gpt-4o` is not `gpt-4o-mini-2024-07-18`).
 */
export function servesPinned(pinned: string, served: string): boolean {
  if (served === pinned) return true;
  return served.startsWith(pinned) && /^-(\d{4}-\d{2}-\d{2}|\d{4}|\d{8})$/.test(served.slice(pinned.length));
}
