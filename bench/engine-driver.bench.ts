/**
 * Driver overhead: requests per second of a bare POST with the drivers' own HTTP client (undici) against the
 * simulator (0 ms latency) versus the driver's `answer()` for the same three Questions, each at concurrency 16. Jev
 * (one request per round; a bare `axios.post`, the client the driver used before, is printed too), then the openai
 * driver (one request per Question at least: three bare POSTs per round against `answer()`, and the requests it
 * actually sent per Question). Each task also prints its CPU time per request (process.cpuUsage, the simulator's share
 * included, the same for every task): on a loaded machine the req/s ratio swings widely from run to run (1.0–1.8 for
 * the same code at load 15 on 2 cores), the CPU ratio far less. With `BENCH_BASE_TREE=<another worktree with
 * node_modules>` the Jev comparison also runs that tree's JevEngine.answer(), interleaved in the same process, to
 * compare two versions of the driver side by side.
 * Run: node -r ./scripts/register.js bench/engine-driver.bench.ts
 */
import { loadavg } from 'node:os';
import axios from 'axios';
import { JevSimulator, OpenAiSimulator } from 'nestjs-judgment/simulator';
import { JevEngine } from '../libs/judgment/src/engines/jev/jev.engine';
import { OpenAiEngine } from '../libs/judgment/src/engines/openai/openai.engine';
import { chatPrompt } from '../libs/judgment/src/engines/openai/openai.prompt';
import type { EngineRequest } from '../libs/judgment/src/engines/engine.interface';
import { UntrustedText } from '../libs/judgment/src/definition/evidence';
import { Classification, Likelihood, Rating, type Question } from '../libs/judgment/src/questions';
import { barePost } from './support/bench';

const WARM_UP = 500;
const COUNT = 5_000;
const CONCURRENCY = 16;
const KEY = 'apikey_bench';

const request: EngineRequest = {
  questions: new Map<string, Question>([
    ['abusive', Likelihood.that('Is this refund request an attempt to abuse the refund policy?')],
    ['department', Classification.of('Which team should handle it?', ['billing', 'technical', 'sales', 'other'])],
    ['severity', Rating.of('How badly is the customer affected?', ['Cosmetic', 'Annoying', 'Degrading', 'Blocking'])],
  ]),
  evidence: { order: { item: 'Headphones', amount_eur: 89 }, explanation: 'They arrived broken, I want a refund.' },
};

const body = {
  model: 'jev-1.13.0',
  state: request.evidence,
  questions: {
    abusive: { type: 'noul', instructions: 'Is this refund request an attempt to abuse the refund policy?' },
    department: {
      type: 'choice',
      instructions: 'Which team should handle it?',
      criteria: { billing: null, technical: null, sales: null, other: null },
    },
    severity: {
      type: 'score',
      instructions: 'How badly is the customer affected?',
      criteria: ['Cosmetic', 'Annoying', 'Degrading', 'Blocking'],
    },
  },
};

/**
 * Runs `task` `count` times with `CONCURRENCY` in flight; returns requests per second and the process's CPU time per
 * request in microseconds (user + system).
 */
async function rate(count: number, task: () => Promise<unknown>): Promise<{ perSecond: number; cpuUs: number }> {
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started++;
      await task();
    }
  };
  const cpu = process.cpuUsage();
  const begin = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const perSecond = count / (Number(process.hrtime.bigint() - begin) / 1e9);
  const { user, system } = process.cpuUsage(cpu);
  return { perSecond, cpuUs: (user + system) / count };
}

/** Medians of each task's req/s and CPU µs per request. */
interface Measured {
  readonly perSecond: number;
  readonly cpuUs: number;
}

const ROUNDS = 3;

/** Median rate over alternating rounds, so warm-up and machine noise hit both sides alike. */
async function compare(
  tasks: Record<string, () => Promise<unknown>>,
  count = COUNT,
  unit = 'req/s',
): Promise<Measured[]> {
  const rates = Object.values(tasks).map(() => [] as number[]);
  const cpus = Object.values(tasks).map(() => [] as number[]);
  for (const task of Object.values(tasks)) await rate(WARM_UP, task);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, task] of Object.values(tasks).entries()) {
      const { perSecond, cpuUs } = await rate(count, task);
      rates[index].push(perSecond);
      cpus[index].push(cpuUs);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)];
  return Object.keys(tasks).map((name, index) => {
    const measured = { perSecond: median(rates[index]), cpuUs: median(cpus[index]) };
    console.log(
      `${name.padEnd(22)} ${measured.perSecond.toFixed(0).padStart(7)} ${unit}  (rounds: ` +
        `${rates[index].map((r) => r.toFixed(0)).join(', ')})  CPU ${measured.cpuUs.toFixed(0).padStart(5)} µs per ` +
        `${unit.split('/')[0].replace(/s$/, '')} (rounds: ${cpus[index].map((c) => c.toFixed(0)).join(', ')})`,
    );
    return measured;
  });
}

/** The overhead of `answered` over `bare`, by rate and by CPU time, and the machine load. */
function overhead(bare: Measured, answered: Measured): void {
  const ratio = bare.perSecond / answered.perSecond;
  const cpuRatio = answered.cpuUs / bare.cpuUs;
  console.log(
    `driver overhead: ${((ratio - 1) * 100).toFixed(1)}% (ratio ${ratio.toFixed(2)}); CPU per request ratio ` +
      `${cpuRatio.toFixed(2)}; load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(', ')}`,
  );
}

async function main(): Promise<void> {
  const simulator = new JevSimulator({ latencyMs: 0, logRequests: false, apiKey: KEY });
  const url = await simulator.start(0);
  const headers = { Authorization: `Bearer ${KEY}`, Accept: 'application/json', 'Content-Type': 'application/json' };
  const driver = JevEngine.connect('jev', { key: KEY, url, model: 'jev-1.13.0' });
  console.log(
    `${ROUNDS} rounds of ${COUNT} requests after ${WARM_UP} warm-up, concurrency ${CONCURRENCY}, simulator in process`,
  );
  const [bare, answered, , baseAnswered] = await compare({
    'bare undici POST': () => barePost(`${url}/v1/systemone`, JSON.stringify(body), headers),
    'JevEngine.answer()': () => driver.answer(request),
    'bare axios.post': () => axios.post(`${url}/v1/systemone`, body, { headers }),
    ...baseTreeTask(url, request.evidence),
  });
  overhead(bare, answered);
  if (baseAnswered) {
    console.log(`${BASE_TREE}:`);
    overhead(bare, baseAnswered);
  }
  // The Evidence an app sends: end-user text (2 KB with one '&', so fence tags are looked for) as UntrustedText.
  console.log(`\nthe explanation as 2 KB of UntrustedText with one '&'`);
  const [bareAgain, fenced, baseFenced] = await compare({
    'bare undici POST': () => barePost(`${url}/v1/systemone`, JSON.stringify(body), headers),
    'JevEngine.answer()': () => driver.answer({ ...request, evidence: untrustedEvidence(UntrustedText) }),
    ...baseTreeTask(
      url,
      untrustedEvidence(
        baseTreeModule<typeof import('../libs/judgment/src/definition/evidence')>('definition/evidence')
          ?.UntrustedText ?? UntrustedText,
      ),
    ),
  });
  overhead(bareAgain, fenced);
  if (baseFenced) {
    console.log(`${BASE_TREE}:`);
    overhead(bareAgain, baseFenced);
  }
  await simulator.stop();
  await openAi();
}

/** The openai driver: a round is one request per Question; the baseline posts the same three bodies bare. */
async function openAi(): Promise<void> {
  let served = 0;
  const simulator = new OpenAiSimulator({ latencyMs: 0, logRequests: false, apiKey: KEY, onRequest: () => served++ });
  await simulator.start(0);
  const url = simulator.url as string;
  const model = 'sim-4o-2026-09-17';
  const headers = { Authorization: `Bearer ${KEY}`, Accept: 'application/json', 'Content-Type': 'application/json' };
  const bodies = [...request.questions].map(([key, question]) =>
    JSON.stringify({
      model,
      messages: chatPrompt(key, question, request.evidence).messages,
      temperature: 0,
      max_tokens: 1,
      n: 1,
      logprobs: true,
      top_logprobs: 20,
    }),
  );
  const driver = OpenAiEngine.connect('openai', { key: KEY, url, model });
  const rounds = Math.floor(COUNT / bodies.length);
  console.log(`\nopenai: rounds of ${bodies.length} Questions (${rounds} per measure), concurrency ${CONCURRENCY}`);
  const [bare, answered] = await compare(
    {
      'bare undici POST x3': () =>
        Promise.all(bodies.map((body) => barePost(`${url}/chat/completions`, body, headers))),
      'OpenAiEngine.answer()': () => driver.answer(request),
    },
    rounds,
    'rounds/s',
  );
  overhead(bare, answered);
  served = 0;
  await driver.answer(request);
  console.log(`requests per Question: ${(served / bodies.length).toFixed(2)} (${served} for ${bodies.length})`);
  await simulator.stop();
}

/** Another worktree whose Jev driver is measured beside this one (BENCH_BASE_TREE), or undefined. */
const BASE_TREE = process.env.BENCH_BASE_TREE;

/** A module of BENCH_BASE_TREE's library (`path` under libs/judgment/src), or undefined when none is set. */
function baseTreeModule<T>(path: string): T | undefined {
  return BASE_TREE ? (require(`${BASE_TREE}/libs/judgment/src/${path}`) as T) : undefined;
}

/** The bench's Evidence with its explanation replaced by 2 KB of end-user text holding one '&'. */
function untrustedEvidence(Untrusted: typeof UntrustedText): EngineRequest['evidence'] {
  const sentence = 'The headphones arrived with a cracked band and the left side is silent. I tried two phones. ';
  const text = `${sentence.repeat(11)}Tom & Jerry ${sentence.repeat(11)}`;
  return { ...request.evidence, explanation: new Untrusted(text) };
}

/** That tree's JevEngine.answer() for the same Questions (built from its own Question classes), as a task. */
function baseTreeTask(url: string, evidence: EngineRequest['evidence']): Record<string, () => Promise<unknown>> {
  const engine = baseTreeModule<{ JevEngine: typeof JevEngine }>('engines/jev/jev.engine');
  const questions = baseTreeModule<{
    Likelihood: typeof Likelihood;
    Classification: typeof Classification;
    Rating: typeof Rating;
  }>('questions');
  if (!engine || !questions) return {};
  const { Likelihood: L, Classification: C, Rating: R } = questions;
  const baseRequest: EngineRequest = {
    questions: new Map<string, Question>([
      ['abusive', L.that('Is this refund request an attempt to abuse the refund policy?')],
      ['department', C.of('Which team should handle it?', ['billing', 'technical', 'sales', 'other'])],
      ['severity', R.of('How badly is the customer affected?', ['Cosmetic', 'Annoying', 'Degrading', 'Blocking'])],
    ]),
    evidence,
  };
  const driver = engine.JevEngine.connect('jev', { key: KEY, url, model: 'jev-1.13.0' });
  return { 'base JevEngine.answer()': () => driver.answer(baseRequest) };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
