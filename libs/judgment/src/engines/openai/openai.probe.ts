import { EngineFailed, MalformedEngineResponse } from '../../errors';
import { Classification, Likelihood, Rating, type Question } from '../../questions';
import type { EngineHttpAnswer } from '../http/engine-http.client';
import { redact, shorten } from '../http/foreign-json';
import { statusError } from '../http/status-errors';
import { isObject, parseObject } from '../jev/jev.wire';
import { answerTokens, chatPrompt, completionRequest, MAX_OPTIONS } from './openai.prompt';
import { openAiErrorReason, readCompletion, servesPinned } from './openai.response';
import { foldToken, PLACEHOLDER_LOGPROB, SUM_TOLERANCE } from './option-distribution';

/** The requests a probe sends: one fixed Likelihood, one fixed Classification, one fixed Rating. */
export const PROBE_REQUESTS = 3;

/** A Question of a registered Judgment, as the probe checks its answer tokens. */
export interface ProbedQuestion {
  /** `judgment.key` (`judgment.set.label` for a Likelihood Set label). */
  readonly name: string;
  readonly question: Question;
}

/** One thing the probe found wrong (a failure: the driver would refuse or mislead) or doubtful (a warning). */
export interface ProbeFinding {
  readonly severity: 'failure' | 'warning';
  /** What was checked: `reachable`, `logprobs`, `top-logprobs`, `distribution`, `sentinels`, `answers`, `tokens`, `model`, `request-ids`. */
  readonly check: string;
  readonly problem: string;
  readonly fix: string;
}

/** How one fixed Question was answered. */
export interface ProbeAnswer {
  readonly kind: Question['kind'];
  /** The options it offered. */
  readonly options: number;
  /** `top_logprobs` entries returned, null when none came back. */
  readonly returned: number | null;
  /** The share of the first token on the answers (as listed). */
  readonly coverage: number;
  /** Whether the driver reads it (null: it would be asked again lettered without A and I). */
  readonly read: boolean | null;
  /** The likeliest first tokens as sent (text, probability, id where given). */
  readonly likeliest: ReadonlyArray<{ readonly token: string; readonly p: number; readonly id?: number }>;
}

/** What `judgment probe` reports of one openai connection. */
export interface OpenAiProbeReport {
  readonly connection: string;
  readonly url: string;
  /** The model the connection pins, and the one the server answered as (null when no answer named one). */
  readonly pinned: string;
  readonly served: string | null;
  /** Requests sent (at most PROBE_REQUESTS; fewer when the server refused the first). */
  readonly requests: number;
  readonly logprobs: boolean;
  readonly topLogprobs: { readonly asked: number; readonly returned: number | null };
  /** Whether the entries carry token ids (llama.cpp) or only text (OpenAI). */
  readonly tokenIds: boolean;
  /** Where a request id came from: the `x-request-id` header, the body's `id`, or nowhere. */
  readonly requestIds: 'header' | 'body' | 'none';
  readonly answers: readonly ProbeAnswer[];
  /** Each answer token the registered Questions are asked with, and the token id it came back as (null: not seen). */
  readonly tokens: ReadonlyArray<{
    readonly token: string;
    readonly questions: readonly string[];
    readonly seenAs: number | 'text' | null;
  }>;
  readonly findings: readonly ProbeFinding[];
  readonly failures: number;
  readonly warnings: number;
}

/** What the probe needs of the connection: its settings and a way to send a Chat Completions body. */
export interface ProbeTarget {
  readonly connection: string;
  readonly url: string;
  readonly model: string;
  readonly topLogprobs: number;
  readonly minCoverage: number;
  /** Whether the connection accepts a model other than the pinned one (`allowAliases`). */
  readonly allowAliases: boolean;
  readonly key: string | null;
  send(body: string): Promise<EngineHttpAnswer>;
}

const EVIDENCE = { text: 'A red kettle, bought last week, arrived with a cracked lid.' };

/** One answer as sent: its raw first-token entries and what identifies the request and the model. */
interface Sent {
  readonly kind: Question['kind'];
  readonly options: number;
  readonly answer: EngineHttpAnswer;
  readonly entries: Array<{ token: string; logprob: number; id?: number }> | null;
  readonly model: string | null;
  readonly header: boolean;
  readonly bodyId: boolean;
}

/**
 * Asks a connection three fixed Questions (a Likelihood, a Classification with as many options as the widest
 * registered one, a Rating with as many levels as the longest) and reports what it can do: logprobs, how many
 * top_logprobs, token ids, sentinel values, whether the answers are read, whether each answer token of the registered
 * Questions came back as a token of its own, the model it answers as against the pinned one, and request ids.
 */
export async function probeOpenAi(
  target: ProbeTarget,
  registered: readonly ProbedQuestion[],
): Promise<OpenAiProbeReport> {
  const findings: ProbeFinding[] = [];
  const finding = (severity: ProbeFinding['severity'], check: string, problem: string, fix: string) =>
    findings.push({ severity, check, problem, fix });
  const sent: Sent[] = [];
  const answers: ProbeAnswer[] = [];
  let requests = 0;
  for (const [key, question] of fixedQuestions(target, registered)) {
    requests++;
    let answer: EngineHttpAnswer;
    try {
      answer = await target.send(
        completionRequest(target.model, chatPrompt(key, question, EVIDENCE), target.topLogprobs),
      );
    } catch (error) {
      if (!(error instanceof EngineFailed)) throw error;
      finding(
        'failure',
        'reachable',
        error.message,
        `Check engines.${target.connection}.url and that the server runs.`,
      );
      break;
    }
    if (answer.status < 200 || answer.status > 299) {
      const origin = { connection: target.connection, requestId: null };
      const error = statusError(answer.status, answer.text, origin, answer.attempts, target.key, openAiErrorReason);
      finding(
        'failure',
        'reachable',
        error.message,
        'Fix what the server says; the probe asks nothing else until then.',
      );
      break;
    }
    const one = readSent(question, answer, target.key);
    sent.push(one);
    answers.push(readAnswer(key, question, one, target));
  }
  const listed = sent.flatMap((one) => (one.entries === null ? [] : [one.entries]));
  const returned = listed.length === 0 ? null : Math.min(...listed.map((entries) => entries.length));
  const served = sent.find((one) => one.model !== null)?.model ?? null;
  if (sent.length > 0) {
    checkLogprobs(target, sent, returned, registered, finding);
    // Without real log-probabilities every answer is refused for that one reason, already said.
    const unusable = findings.some(({ check }) => ['logprobs', 'sentinels', 'distribution'].includes(check));
    if (!unusable) checkAnswers(answers, finding, target);
    checkModel(target, served, finding);
    checkRequestIds(target, sent, finding);
  }
  const tokens = tokenReport(registered, sent);
  const unseen = tokens.filter((token) => token.seenAs === null).map((token) => token.token);
  if (sent.length > 0 && unseen.length > 0) {
    finding(
      'warning',
      'tokens',
      `The answer tokens ${unseen.join(', ')} of the registered Questions were not among the top ${returned ?? 0} of ` +
        'any probe answer, so the probe cannot tell whether each is a token of its own for this model.',
      'Nothing to do while the answers are read: a model that split an answer token into pieces would put little ' +
        'mass on it, and the coverage rule would refuse its answers.',
    );
  }
  checkDistinctTokens(registered, tokens, finding);
  const failures = findings.filter((item) => item.severity === 'failure').length;
  return {
    connection: target.connection,
    url: target.url,
    pinned: target.model,
    served,
    requests,
    logprobs: listed.length > 0 && listed.length === sent.length,
    topLogprobs: { asked: target.topLogprobs, returned },
    tokenIds: listed.length > 0 && listed.every((entries) => entries.every((entry) => entry.id !== undefined)),
    requestIds: requestIdSource(sent),
    answers,
    tokens,
    findings,
    failures,
    warnings: findings.length - failures,
  };
}

/** The three fixed Questions, as wide as the widest registered Classification and the longest registered Rating. */
function fixedQuestions(target: ProbeTarget, registered: readonly ProbedQuestion[]): Array<[string, Question]> {
  const widest = (kind: Question['kind'], count: (question: Question) => number) =>
    Math.max(3, ...registered.filter(({ question }) => question.kind === kind).map(({ question }) => count(question)));
  const options = Math.min(
    widest('classification', (question) => (question as Classification<string, boolean>).options().length),
    MAX_OPTIONS,
    target.topLogprobs,
  );
  const levels = widest('rating', (question) => (question as Rating).levels.length);
  const colours = ['red', 'green', 'blue', 'yellow', 'black', 'white'];
  const labels = Array.from({ length: options }, (_, index) => colours[index] ?? `colour-${index + 1}`);
  return [
    ['probe-likelihood', Likelihood.that('Does the text name a colour?')],
    ['probe-classification', Classification.of('Which colour does the text name?', labels)],
    [
      'probe-rating',
      Rating.of(
        'How damaged is the item?',
        Array.from({ length: levels }, (_, index) => `level ${index}`),
      ),
    ],
  ];
}

/** The raw facts of one answer: entries (tokens blanked of the key), the model, and where a request id was. */
function readSent(question: Question, answer: EngineHttpAnswer, key: string | null): Sent {
  const body = parseObject(redact(answer.text, key));
  const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
  const content = isObject(choice) && isObject(choice.logprobs) ? choice.logprobs.content : undefined;
  const top = Array.isArray(content) && isObject(content[0]) ? content[0].top_logprobs : undefined;
  const entries = Array.isArray(top)
    ? top.flatMap((entry) => {
        if (!isObject(entry) || typeof entry.token !== 'string' || typeof entry.logprob !== 'number') return [];
        const id = typeof entry.id === 'number' && Number.isSafeInteger(entry.id) ? { id: entry.id } : {};
        return [{ token: shorten(entry.token, 40), logprob: entry.logprob, ...id }];
      })
    : null;
  const header = answer.headers['x-request-id'];
  return {
    kind: question.kind,
    options: answerTokens(question)?.length ?? 0,
    answer,
    entries: entries !== null && entries.length > 0 ? entries : null,
    model: typeof body?.model === 'string' && body.model !== '' ? shorten(body.model, 200) : null,
    header: typeof header === 'string' && header !== '',
    bodyId: typeof body?.id === 'string' && body.id !== '',
  };
}

/** Whether the driver reads one answer, and its likeliest tokens. */
function readAnswer(key: string, question: Question, sent: Sent, target: ProbeTarget): ProbeAnswer {
  const tokens = answerTokens(question) ?? [];
  const rules = {
    key,
    tokens,
    minCoverage: target.minCoverage,
    temperature: null,
    wordLetters: question.kind === 'classification',
    topLogprobs: target.topLogprobs,
  };
  let coverage: number;
  let read: boolean | null = false;
  try {
    const reading = readCompletion(
      sent.answer.text,
      rules,
      { connection: target.connection, requestId: null },
      target.key,
    );
    coverage = reading.coverage;
    read = reading.inDoubt ? null : true;
  } catch (error) {
    if (!(error instanceof MalformedEngineResponse)) throw error;
    const folded = new Set(tokens.map(foldToken));
    coverage = (sent.entries ?? []).reduce(
      (sum, entry) => sum + (folded.has(foldToken(entry.token)) ? Math.exp(entry.logprob) : 0),
      0,
    );
  }
  return {
    kind: question.kind,
    options: tokens.length,
    returned: sent.entries?.length ?? null,
    coverage,
    read,
    likeliest: (sent.entries ?? [])
      .slice(0, 3)
      .map(({ token, logprob, id }) => ({ token, p: round(Math.exp(logprob)), ...(id === undefined ? {} : { id }) })),
  };
}

type Find = (severity: ProbeFinding['severity'], check: string, problem: string, fix: string) => void;

function checkLogprobs(
  target: ProbeTarget,
  sent: readonly Sent[],
  returned: number | null,
  registered: readonly ProbedQuestion[],
  finding: Find,
): void {
  const option = `engines.${target.connection}.topLogprobs`;
  if (sent.some((one) => one.entries === null)) {
    finding(
      'failure',
      'logprobs',
      `The server answered without logprobs for the first token (asked for logprobs: true, top_logprobs: ${target.topLogprobs}): ` +
        'the driver refuses every answer of this connection, never guessing a distribution.',
      'Use a server and model that return top_logprobs (OpenAI chat models, vLLM, llama.cpp server, recent Ollama).',
    );
    return;
  }
  const placeholders = sent.flatMap((one) => one.entries ?? []).filter((entry) => entry.logprob <= PLACEHOLDER_LOGPROB);
  if (placeholders.length > 0) {
    finding(
      'failure',
      'sentinels',
      `The server sends placeholder log-probabilities (${placeholders[0].logprob} for ${JSON.stringify(placeholders[0].token)}) ` +
        'instead of real ones: the driver refuses its answers.',
      'Use a server or model that reports the probabilities of its top tokens.',
    );
  }
  const over = sent
    .map((one) => (one.entries ?? []).reduce((sum, entry) => sum + Math.exp(entry.logprob), 0))
    .find((sum) => sum > 1 + SUM_TOLERANCE);
  if (over !== undefined) {
    finding(
      'failure',
      'distribution',
      `The server's top_logprobs sum to ${over.toFixed(3)}, more than 1: they are not a distribution, and the driver refuses them.`,
      'Use a server that sends log-probabilities.',
    );
  }
  if (returned !== null && returned < target.topLogprobs) {
    const wider = registered.filter(({ question }) => (answerTokens(question)?.length ?? 0) > returned);
    finding(
      wider.length > 0 ? 'failure' : 'warning',
      'top-logprobs',
      `The server returns ${returned} top_logprobs where ${target.topLogprobs} were asked` +
        (wider.length > 0
          ? `, fewer than the options of ${wider.map(({ name }) => `"${name}"`).join(', ')}: options beyond the list are unknown, and their answers may be refused.`
          : '.'),
      `Set ${option} to ${returned}, so Questions with more options are refused at startup, or use a server that returns more.`,
    );
  }
}

function checkAnswers(answers: readonly ProbeAnswer[], finding: Find, target: ProbeTarget): void {
  for (const answer of answers) {
    const seen = answer.likeliest.map(({ token, p }) => `${JSON.stringify(token)} ${p}`).join(', ');
    if (answer.read === false) {
      finding(
        'failure',
        'answers',
        `The model did not answer the probe's ${answer.kind} in the asked form: ${(answer.coverage * 100).toFixed(1)}% ` +
          `of its first token on the answers (at least ${(target.minCoverage * 100).toFixed(1)}% needed; likeliest: ${seen || 'none'}).`,
        'Use a model that follows instructions (an instruct or chat model), or lower minCoverage if it is known to answer.',
      );
    } else if (answer.read === null) {
      finding(
        'warning',
        'answers',
        `The probe's Classification was answered on A or I with the rest of the first token mostly off letters (likeliest: ${seen}): ` +
          'such answers are asked a second time, lettered without A and I (the word-letter check).',
        'Nothing to do; expect two requests for such Classifications.',
      );
    } else if (answer.likeliest[0] !== undefined && answer.likeliest[0].p > 0.999) {
      finding(
        'warning',
        'answers',
        `The probe's ${answer.kind} was answered at ${answer.likeliest[0].p} (${JSON.stringify(answer.likeliest[0].token)}): ` +
          'a model that answers everything at about 100 % gives probabilities that cannot be calibrated.',
        'Compare with the calibration run; the signal-collapse guard watches live answers for this.',
      );
    }
  }
}

function checkModel(target: ProbeTarget, served: string | null, finding: Find): void {
  if (served === null || servesPinned(target.model, served)) return;
  finding(
    target.allowAliases ? 'warning' : 'failure',
    'model',
    `The server answers as "${served}", not the pinned "${target.model}"` +
      (target.allowAliases
        ? ' (allowAliases accepts it).'
        : ': calibrated thresholds may not hold for the model that answers.'),
    `Pin the model the server serves in engines.${target.connection}.model${target.allowAliases ? '' : ', or set allowAliases if the server names the pinned model otherwise'}.`,
  );
}

function checkRequestIds(target: ProbeTarget, sent: readonly Sent[], finding: Find): void {
  if (sent.every((one) => one.header || one.bodyId)) return;
  finding(
    'warning',
    'request-ids',
    'The server sends no request id (no x-request-id header, no id in the body): records cannot be traced to its logs.',
    `Nothing the driver can do; the records of connection "${target.connection}" keep a null request id.`,
  );
}

/** Where the answers' request ids came from: every one a header, else each a header or a body id, else none. */
function requestIdSource(sent: readonly Sent[]): OpenAiProbeReport['requestIds'] {
  if (sent.length === 0) return 'none';
  if (sent.every((one) => one.header)) return 'header';
  return sent.every((one) => one.header || one.bodyId) ? 'body' : 'none';
}

/** Each answer token the registered Questions use, and how it came back in the probe's answers. */
function tokenReport(registered: readonly ProbedQuestion[], sent: readonly Sent[]): OpenAiProbeReport['tokens'] {
  const byToken = new Map<string, string[]>();
  for (const { name, question } of registered) {
    for (const token of answerTokens(question) ?? []) byToken.set(token, [...(byToken.get(token) ?? []), name]);
  }
  const entries = sent.flatMap((one) => one.entries ?? []);
  return [...byToken].map(([token, questions]) => {
    const exact =
      entries.find((entry) => entry.token === token) ?? entries.find((entry) => entry.token.trim() === token);
    return { token, questions, seenAs: exact === undefined ? null : (exact.id ?? 'text') };
  });
}

/**
 * A registered Question two of whose answer tokens came back as one token id cannot tell those options apart on this
 * model: a failure naming the Question, the tokens and the id.
 */
function checkDistinctTokens(
  registered: readonly ProbedQuestion[],
  tokens: OpenAiProbeReport['tokens'],
  finding: Find,
): void {
  const idOf = new Map(tokens.map(({ token, seenAs }) => [token, seenAs]));
  for (const { name, question } of registered) {
    const byId = new Map<number, string[]>();
    for (const token of answerTokens(question) ?? []) {
      const id = idOf.get(token);
      if (typeof id === 'number') byId.set(id, [...(byId.get(id) ?? []), token]);
    }
    for (const [id, same] of byId) {
      if (same.length < 2) continue;
      finding(
        'failure',
        'tokens',
        `${name}'s answer tokens ${same.map((token) => JSON.stringify(token)).join(' and ')} came back as the one ` +
          `token #${id}: this model cannot tell those options apart.`,
        'Rename the options (or levels) so that each starts with a token of its own on this model.',
      );
    }
  }
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
