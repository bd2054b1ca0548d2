/**
 * The simulated model of the OpenAI-compatible mode: the next-token distribution of a chat, deterministic (a hash of
 * the conversation) unless steered by `[[key=target:p]]` markers. Pure functions, no I/O.
 */
import { fnv1a, parseSteering, prng, type SteerTarget } from './simulated-answers';

/** How the simulated model spreads its first token. */
export type OpenAiBehaviour =
  /** Most mass (90–99 %) on the answer candidates, the rest on filler tokens. */
  | 'answer'
  /** `logprobs: null` in every choice, even when asked for (as some servers do). */
  | 'omit-logprobs'
  /** About 80 % of the mass on filler tokens: the model "talks" instead of answering. */
  | 'off-options';

/** One `top_logprobs` entry as the API returns it. */
export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

/** Tokens a chatty model starts with instead of an answer. */
const FILLERS = ['The', 'I', 'Based', '**', '\n', 'Answer', 'Sorry'];

/** One answer the model may give: the token as written in the prompt, and the text beside it. */
interface Candidate {
  readonly token: string;
  readonly text: string;
}

/**
 * The answers a prompt offers: an enumerated list in the last user message (lines `A) text`, `2. text`, `yes: text`)
 * when it has two or more entries, else `yes` and `no`.
 */
export function answerCandidates(lastUser: string): Candidate[] {
  const listed = [...lastUser.matchAll(/^[ \t]*([A-Za-z0-9]{1,3})[).:][ \t]+(.*)$/gm)].map(([, token, text]) => ({
    token,
    text: text.trim(),
  }));
  return listed.length >= 2
    ? listed
    : [
        { token: 'yes', text: 'yes' },
        { token: 'no', text: 'no' },
      ];
}

/**
 * The first token's top log-probabilities, most likely first, at most `count` of them. A marker applies when its key
 * is `p` or appears in double quotes in the last user message (the most specific wins); its target names a
 * candidate token, the start of a candidate's text (a label), or `true`/`false` for a yes/no answer.
 */
export function firstTokenLogprobs(
  conversation: string,
  lastUser: string,
  behaviour: Exclude<OpenAiBehaviour, 'omit-logprobs'>,
  count: number,
): TopLogprob[] {
  const candidates = answerCandidates(lastUser);
  const rand = prng(fnv1a(conversation));
  const shares = steered(candidates, lastUser, conversation) ?? spread(candidates.length, rand);
  const onOptions = behaviour === 'off-options' ? 0.2 : 0.9 + rand() * 0.09;
  const entries: Array<[string, number]> = [];
  candidates.forEach(({ token }, index) => {
    const mass = shares[index] * onOptions;
    // Spelling variants the tokenizer also knows: a leading space and the other case.
    const other = token === token.toLowerCase() ? token.toUpperCase() : token.toLowerCase();
    entries.push([token, mass * 0.85], [` ${token}`, mass * 0.1]);
    if (other !== token) entries.push([other, mass * 0.05]);
    else entries[entries.length - 2][1] += mass * 0.05;
  });
  const fillers = behaviour === 'off-options' ? FILLERS : FILLERS.slice(0, 3);
  fillers.forEach((token, index) =>
    entries.push([token, ((1 - onOptions) * 2 ** -(index + 1)) / (1 - 2 ** -fillers.length)]),
  );
  return entries
    .filter(([, mass]) => mass > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([token, mass]) => ({ token, logprob: Math.log(mass), bytes: [...Buffer.from(token, 'utf8')] }));
}

/** The shares of the candidates when a marker steers this prompt, else undefined. */
function steered(candidates: Candidate[], lastUser: string, conversation: string): number[] | undefined {
  const steering = parseSteering(conversation);
  let chosen: SteerTarget | undefined;
  for (const [key, target] of steering) {
    if (key !== 'p' && !key.includes(':') && lastUser.includes(`"${key}"`)) chosen = target;
  }
  chosen ??= steering.get('p');
  if (!chosen) return undefined;
  const yesNo = candidates.length === 2 && candidates[0].token.toLowerCase() === 'yes';
  const digits = candidates.every(({ token }) => /^\d+$/.test(token));
  let index: number;
  let p = chosen.p;
  if (chosen.target === undefined) {
    index = digits ? candidates.length - 1 : 0;
  } else if (yesNo && ['true', 'false'].includes(chosen.target)) {
    index = 0;
    if (chosen.target === 'false') p = 1 - p;
  } else {
    const target = chosen.target.toLowerCase();
    index = candidates.findIndex(
      ({ token, text }) =>
        token.toLowerCase() === target ||
        text.toLowerCase() === target ||
        (text.toLowerCase().startsWith(target) && /^\W/.test(text.slice(target.length))),
    );
    if (index < 0) return undefined;
  }
  const rest = candidates.length > 1 ? (1 - p) / (candidates.length - 1) : 0;
  return candidates.map((_, position) => (position === index ? p : rest));
}

/** A hash-seeded distribution over `n` candidates with one clear favourite. */
function spread(n: number, rand: () => number): number[] {
  const weights = Array.from({ length: n }, () => Math.exp(rand() * 3));
  weights[Math.floor(rand() * n)] *= 3 + rand() * 6;
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
}
