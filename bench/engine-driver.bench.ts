/**
 * Driver overhead: requests per second of a bare POST with the drivers' own HTTP client (undici) against the
 * simulator (0 ms latency) versus the driver's `answer()` for the same three Questions, each at concurrency 16. Jev
 * (one request per round; a bare `axios.post`, the client the driver used before, is printed too), then the openai
 * driver (one request per Question at least: three bare POSTs per round against `answer()`, and the requests it
 * actually sent per Question).
 * Run: node -r ./scripts/register.js bench/engine-driver.bench.ts
 */
import axios from 'axios';
import { JevSimulator, OpenAiSimulator } from 'nestjs-judgment/simulator';
import { JevEngine } from '../libs/judgment/src/engines/jev/jev.engine';
import { OpenAiEngine } from '../libs/judgment/src/engines/openai/openai.engine';
import { chatPrompt } from '../libs/judgment/src/engines/openai/openai.prompt';
import type { EngineRequest } from '../libs/judgment/src/engines/engine.interface';
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

/** Runs `task` `count` times with `CONCURRENCY` in flight; returns requests per second. */
async function rate(count: number, task: () => Promise<unknown>): Promise<number> {
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started++;
      await task();
    }
  };
  const begin = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return count / (Number(process.hrtime.bigint() - begin) / 1e9);
}

const ROUNDS = 3;

/** Median rate over alternating rounds, so warm-up and machine noise hit both sides alike. */
async function compare(
  tasks: Record<string, () => Promise<unknown>>,
  count = COUNT,
  unit = 'req/s',
): Promise<number[]> {
  const rates = Object.values(tasks).map(() => [] as number[]);
  for (const task of Object.values(tasks)) await rate(WARM_UP, task);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, task] of Object.values(tasks).entries()) rates[index].push(await rate(count, task));
  }
  return Object.keys(tasks).map((name, index) => {
    const median = rates[index].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)];
    console.log(
      `${name.padEnd(22)} ${median.toFixed(0).padStart(7)} ${unit}  (rounds: ${rates[index].map((r) => r.toFixed(0)).join(', ')})`,
    );
    return median;
  });
}

async function main(): Promise<void> {
  const simulator = new JevSimulator({ latencyMs: 0, logRequests: false, apiKey: KEY });
  const url = await simulator.start(0);
  const headers = { Authorization: `Bearer ${KEY}`, Accept: 'application/json', 'Content-Type': 'application/json' };
  const driver = JevEngine.connect('jev', { key: KEY, url, model: 'jev-1.13.0' });
  console.log(
    `${ROUNDS} rounds of ${COUNT} requests after ${WARM_UP} warm-up, concurrency ${CONCURRENCY}, simulator in process`,
  );
  const [bare, answered] = await compare({
    'bare undici POST': () => barePost(`${url}/v1/systemone`, JSON.stringify(body), headers),
    'JevEngine.answer()': () => driver.answer(request),
    'bare axios.post': () => axios.post(`${url}/v1/systemone`, body, { headers }),
  });
  console.log(`driver overhead: ${((bare / answered - 1) * 100).toFixed(1)}% (ratio ${(bare / answered).toFixed(2)})`);
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
  console.log(`driver overhead: ${((bare / answered - 1) * 100).toFixed(1)}% (ratio ${(bare / answered).toFixed(2)})`);
  served = 0;
  await driver.answer(request);
  console.log(`requests per Question: ${(served / bodies.length).toFixed(2)} (${served} for ${bodies.length})`);
  await simulator.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
