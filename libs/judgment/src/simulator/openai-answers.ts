/**
 * The simulated model of the OpenAI-compatible mode: the next-token distribution of a chat, deterministic (a hash of
 * the conversation) unless steered by `[[key=target:p]]` markers. Pure functions, no I/O.
 */
import { caseKeyOf, drawNoise, noisyTarget, parseTruths, yesNoIndex } from './answer-noise';
import { fnv1a, mulberry32 } from '../fingerprint/seeded-random';
import { parseSteering, type NoisyModel, type SteerTarget } from './simulated-answers';

/** How the simulated model spreads its first token. */
export type OpenAiBehaviour =
  /** Most mass (90–99 %) on the answer candidates, the rest on filler tokens. */
  | 'answer'
  /** `logprobs: null` in every choice, even when asked for (as some servers do). */
  | 'omit-logprobs'
  /** About 80 % of the mass on filler tokens: the model "talks" instead of answering. */
  | 'off-options'
  /**
   * A model that wants to chat, like llama-server's tiny-chatty: about 74 % on `I` and 25 % on `The`, almost nothing on
   * the answers. `I` and `A` are also option letters: a wide Classification sees mass on them.
   */
  | 'chatty'
  /** A collapsed signal: the favourite answer at about 100 % (logprob ≈ −1e-6) on every prompt, the rest ≈ 0. */
  | 'collapsed'
  /** The end-of-text token (rendered `""`, as llama-server renders special tokens) is the likeliest first token. */
  | 'end-of-text'
  /** Placeholder log-probabilities, as some providers send: the top entry at 0, every other at −9999. */
  | 'sentinels';

/** Every behaviour, for the bin's flag. */
export const OPENAI_BEHAVIOURS: readonly OpenAiBehaviour[] = [
  'answer',
  'omit-logprobs',
  'off-options',
  'chatty',
  'collapsed',
  'end-of-text',
  'sentinels',
];

/** One `top_logprobs` entry as the server returns it; `id` only where the server sends token ids (llama-server). */
export interface TopLogprob {
  id?: number;
  token: string;
  logprob: number;
  bytes: number[];
}

/** Tokens a talkative model starts with instead of an answer. */
const FILLERS = ['The', 'I', 'Based', '**', '\n', 'Answer', 'Sorry'];
/** Unlikely tokens that fill the list up to the `top_logprobs` asked for, as a real vocabulary's tail does. */
const TAIL = [' anys', ' im', 'igo', ' ces', ' racing', ' pag', ' eigen', ' protection', 'spring', 'visible', 'ANCE'];
/** Special tokens a llama.cpp server renders as `""`: distinct tokens, told apart only by their ids. */
const SPECIAL_IDS = { endOfText: 32000, end: 32007, assistant: 32001 } as const;

/** One answer the model may give: the token as written in the prompt, and the text beside it. */
interface Candidate {
  readonly token: string;
  readonly text: string;
}

/** What the model is asked for one completion. */
export interface FirstTokenRequest {
  /** Every message's text, joined: the hash seed and the steering markers. */
  readonly conversation: string;
  /** The last user message: where the answer list is read. */
  readonly lastUser: string;
  readonly behaviour: Exclude<OpenAiBehaviour, 'omit-logprobs'>;
  /** Entries returned: exactly this many, as real servers do. */
  readonly count: number;
  /** Token ids on every entry (llama-server), and special tokens rendered `""` in the tail. */
  readonly tokenIds: boolean;
  /** The model asked, when it has a noise profile: a prompt carrying `[[truth=…]]` is answered with its noise. */
  readonly noisy?: NoisyModel;
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
 * The first token's top log-probabilities, most likely first, exactly `count` of them (the tail filled with unlikely
 * tokens). A marker applies when its key is `p` or appears in double quotes in the last user message (the most
 * specific wins); its target names a candidate token, the start of a candidate's text (a label), or `true`/`false`
 * for a yes/no answer.
 */
export function firstTokenLogprobs(request: FirstTokenRequest): TopLogprob[] {
  const { conversation, lastUser, behaviour, count, tokenIds, noisy } = request;
  const candidates = answerCandidates(lastUser);
  const rand = mulberry32(fnv1a(conversation));
  const shares =
    (noisy && noisyShares(candidates, lastUser, conversation, noisy)) ??
    steered(candidates, lastUser, conversation) ??
    spread(candidates.length, rand);
  const masses = new Map<string, number>();
  const add = (token: string, mass: number) => masses.set(token, (masses.get(token) ?? 0) + mass);
  if (behaviour === 'collapsed' || behaviour === 'sentinels') {
    // The favourite takes everything but a trace; the other answers share the trace.
    const favourite = shares.indexOf(Math.max(...shares));
    candidates.forEach(({ token }, index) => add(token, index === favourite ? 1 - 1e-6 : 1e-7 / candidates.length));
  } else {
    const onOptions = { answer: 0.9 + rand() * 0.09, 'off-options': 0.2, chatty: 0.004, 'end-of-text': 0.45 }[
      behaviour
    ];
    candidates.forEach(({ token }, index) => {
      const mass = shares[index] * onOptions;
      // Spelling variants the tokenizer also knows: a leading space and the other case.
      const other = token === token.toLowerCase() ? token.toUpperCase() : token.toLowerCase();
      add(token, mass * 0.85);
      add(` ${token}`, other === token ? mass * 0.15 : mass * 0.1);
      if (other !== token) add(other, mass * 0.05);
    });
    // What is not on the answers: nearly all on fillers, a hundredth left for the rest of the vocabulary.
    const rest = (1 - onOptions) * 0.99;
    if (behaviour === 'chatty') {
      add('I', rest * 0.742);
      add('The', rest * 0.258);
    } else if (behaviour === 'end-of-text') {
      add('', rest * 0.92);
      add('I', rest * 0.08);
    } else {
      const fillers = behaviour === 'off-options' ? FILLERS : FILLERS.slice(0, 3);
      fillers.forEach((token, index) => add(token, (rest * 2 ** -(index + 1)) / (1 - 2 ** -fillers.length)));
    }
  }
  const entries: TopLogprob[] = [...masses]
    .filter(([, mass]) => mass > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([token, mass]) => entry(token, Math.log(mass), tokenIds));
  const floor = Math.log(1e-7) - 2;
  for (const [index, [token, id]] of tailTokens(tokenIds, Math.max(0, count - entries.length), masses).entries()) {
    entries.push(entry(token, floor - index * 0.001, tokenIds, id));
  }
  const top = entries.slice(0, count);
  if (behaviour === 'sentinels') return top.map((item, index) => ({ ...item, logprob: index === 0 ? 0 : -9999 }));
  return top;
}

/**
 * `count` unlikely tokens for the list's tail, none of them already listed; with token ids, two special tokens
 * rendered `""` lead it (distinct ids, one string). Past the words' end they come back numbered (` anys2`).
 */
function tailTokens(tokenIds: boolean, count: number, listed: ReadonlyMap<string, number>): Array<[string, number]> {
  const tail: Array<[string, number]> = tokenIds
    ? [
        ['', SPECIAL_IDS.end],
        ['', SPECIAL_IDS.assistant],
      ]
    : [];
  for (let index = 0; tail.length < count; index++) {
    const round = Math.floor(index / TAIL.length);
    const token = `${TAIL[index % TAIL.length]}${round === 0 ? '' : round + 1}`;
    if (!listed.has(token)) tail.push([token, tokenId(token)]);
  }
  return tail.slice(0, count);
}

/** One entry; with `withId`, its token id (the given one, else the token's stable id). */
function entry(token: string, logprob: number, withId: boolean, id = tokenId(token)): TopLogprob {
  const bytes = [...Buffer.from(token, 'utf8')];
  return withId ? { id, token, logprob, bytes } : { token, logprob, bytes };
}

/** A stable id for an ordinary token, below the special tokens' ids. */
export function tokenId(token: string): number {
  return token === '' ? SPECIAL_IDS.endOfText : fnv1a(token) % 32000;
}

/** The shares of the candidates when a marker steers this prompt, else undefined. */
function steered(candidates: Candidate[], lastUser: string, conversation: string): number[] | undefined {
  const steering = parseSteering(conversation);
  let chosen: SteerTarget | undefined;
  for (const [key, target] of steering) {
    if (key !== 'p' && !key.includes(':') && lastUser.includes(`"${key}"`)) chosen = target;
  }
  chosen ??= steering.get('p');
  return chosen && sharesFor(candidates, chosen);
}

/**
 * The shares when the conversation gives the truth of this question (`[[truth=…]]`, or `[[truth:<key>=…]]` when
 * `"<key>"` is in the last user message) and the model has a noise profile: its noise around that truth.
 */
function noisyShares(
  candidates: Candidate[],
  lastUser: string,
  conversation: string,
  { noise, profile, model }: NoisyModel,
): number[] | undefined {
  const truths = parseTruths(conversation);
  if (truths.size === 0) return undefined;
  let question = /^Question "([^"]+)"/m.exec(lastUser)?.[1] ?? '';
  let truth = truths.get('');
  for (const [key, answer] of truths) {
    if (key !== '' && lastUser.includes(`"${key}"`)) [question, truth] = [key, answer];
  }
  if (truth === undefined) return undefined;
  const answers = isYesNo(candidates) ? ['true', 'false'] : candidates.map(({ token }) => token);
  const index = isYesNo(candidates) ? yesNoIndex(truth) : candidateIndex(candidates, truth);
  if (index < 0) return undefined;
  const draw = drawNoise(noise, profile, model, caseKeyOf(conversation), question);
  return sharesFor(candidates, noisyTarget(draw, answers, index));
}

const isYesNo = (candidates: Candidate[]) => candidates.length === 2 && candidates[0].token.toLowerCase() === 'yes';

/** The candidate a target names: its token, its text, or the start of its text (a label); −1 when none. */
function candidateIndex(candidates: Candidate[], named: string): number {
  const target = named.toLowerCase();
  return candidates.findIndex(
    ({ token, text }) =>
      token.toLowerCase() === target ||
      text.toLowerCase() === target ||
      (text.toLowerCase().startsWith(target) && /^\W/.test(text.slice(target.length))),
  );
}

/** `chosen.p` on the candidate it targets (the first, or a Rating's highest level, by default), the rest shared evenly. */
function sharesFor(candidates: Candidate[], chosen: SteerTarget): number[] | undefined {
  const digits = candidates.every(({ token }) => /^\d+$/.test(token));
  let index: number;
  let p = chosen.p;
  if (chosen.target === undefined) {
    index = digits ? candidates.length - 1 : 0;
  } else if (isYesNo(candidates) && ['true', 'false'].includes(chosen.target)) {
    index = 0;
    if (chosen.target === 'false') p = 1 - p;
  } else {
    index = candidateIndex(candidates, chosen.target);
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
