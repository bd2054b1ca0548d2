// `judgment probe` and `judgment check --probe` as real processes, over the fixture app (its openai connection from
// the environment), against llama.cpp's llama-server (tiny models) and the simulator's OpenAI mode.
import { startOpenAiSimulator, type StartOpenAiSimulatorOptions } from 'nestjs-judgment/simulator';
import { startLlamaServer, type RunningLlamaServer } from '../support/llama-server';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type Run, runBin } from './cli-process';

const APP = 'test/cli/fixture-app.module.ts#FixtureAppModule';
let judge: RunningLlamaServer;
let chatty: RunningLlamaServer;

beforeAll(async () => {
  [judge, chatty] = await Promise.all([startLlamaServer('tiny-judge'), startLlamaServer('tiny-chatty')]);
});
afterAll(async () => {
  await Promise.all([judge?.stop(), chatty?.stop()]);
});

/** `judgment <args>` over the fixture app, its default connection an openai one at `url` pinned to `model`. */
const probe = (args: string[], url: string, model: string, env: Record<string, string> = {}): Promise<Run> =>
  runBin(['--app', APP, ...args], {
    FIXTURE_DB: ':memory:',
    JUDGMENT_ENGINE: 'openai',
    OPENAI_BASE_URL: url,
    JUDGMENT_OPENAI_MODEL: model,
    ...env,
  });

/** The probe's findings as `severity check` lines. */
const found = (report: { findings: Array<{ severity: string; check: string }> }) =>
  report.findings.map(({ severity, check }) => `${severity} ${check}`);

async function withSimulator<T>(
  options: StartOpenAiSimulatorOptions,
  work: (url: string, model: string) => Promise<T>,
) {
  const sim = await startOpenAiSimulator(options);
  try {
    return await work(sim.url, sim.model);
  } finally {
    await sim.stop();
  }
}

describe('judgment probe against llama-server', () => {
  it('reports logprobs, 20 entries, token ids, the body id as request id, and the model it answers as; 3 requests', async () => {
    const before = judge.exchanges.length;
    const run = await probe(['probe', '--json'], judge.url, 'gpt-4o-mini-2024-07-18');
    expect(run.stderr).toContain(
      `Probing connection "openai" (${judge.url}, model gpt-4o-mini-2024-07-18): 3 requests`,
    );
    expect(judge.exchanges.length - before).toBe(3);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({
      connection: 'openai',
      pinned: 'gpt-4o-mini-2024-07-18',
      served: 'tiny-judge',
      requests: 3,
      logprobs: true,
      topLogprobs: { asked: 20, returned: 20 },
      tokenIds: true,
      requestIds: 'body',
    });
    // The fixture's 3-level Rating gets 42 % of tiny-judge's first token (the distractor "I" takes the most): refused.
    expect(found(report)).toEqual(['failure answers', 'failure model']);
    expect(report.answers.map((answer: { kind: string; read: boolean }) => [answer.kind, answer.read])).toEqual([
      ['likelihood', true],
      ['classification', true],
      ['rating', false],
    ]);
    // The likeliest tokens are what the server sent.
    const raw = JSON.parse(judge.exchanges[before].text).choices[0].logprobs.content[0].top_logprobs[0];
    expect(report.answers[0].likeliest[0]).toEqual({
      token: raw.token,
      id: raw.id,
      p: expect.closeTo(Math.exp(raw.logprob), 6),
    });
    // Every answer token of the fixture's Questions (yes, no, 0, 1, 2) came back as a token of its own, with its id.
    expect(
      report.tokens.map((token: { token: string; seenAs: unknown }) => [token.token, typeof token.seenAs]),
    ).toEqual([
      ['yes', 'number'],
      ['no', 'number'],
      ['0', 'number'],
      ['1', 'number'],
      ['2', 'number'],
    ]);
    expect(run.code).toBe(1);
  });

  it('prints it for a person, as the README shows it', async () => {
    const run = await probe(['probe'], judge.url, 'gpt-4o-mini-2024-07-18');
    expect(run.stdout).toContain('Probing connection "openai"');
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = /#### Probing a connection[\s\S]*?```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const lines = shown.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(10);
    // The README shortens long lines with "…": what comes before it is printed as shown.
    for (const line of lines) expect(run.stdout).toContain(line.split('…')[0]);
    expect(run.code).toBe(1);
  });

  it('check --probe adds the probe of each openai connection to the findings: the chatty model fails every answer', async () => {
    const run = await probe(['check', '--probe', '--json'], chatty.url, 'gpt-4o-mini-2024-07-18', {
      JUDGMENT_OPENAI_ALLOW_ALIASES: 'true',
    });
    const report = JSON.parse(run.stdout);
    const probes = report.findings.filter((finding: { rule: string }) => finding.rule.startsWith('probe:'));
    expect(probes.map((finding: { rule: string; severity: string }) => `${finding.severity} ${finding.rule}`)).toEqual([
      'failure probe:answers',
      'failure probe:answers',
      'failure probe:answers',
      // allowAliases accepts the other model: a warning.
      'warning probe:model',
    ]);
    expect(probes[0].problem).toContain('Connection "openai": The model did not answer');
    expect(probes[0].problem).toContain('"I"');
    expect(run.code).toBe(1);
  });
});

describe('judgment probe against the simulator', () => {
  it('an OpenAI-like server: request id headers, no token ids, every answer read, exit 0', async () => {
    await withSimulator({}, async (url, model) => {
      const run = await probe(['probe', '--json'], url, model);
      const report = JSON.parse(run.stdout);
      expect(report).toMatchObject({
        served: model,
        requestIds: 'header',
        tokenIds: false,
        logprobs: true,
        failures: 0,
      });
      expect(run.code).toBe(0);
    });
  });

  it('a server without logprobs: the probe says so and names the fix', async () => {
    await withSimulator({ behaviour: 'omit-logprobs' }, async (url, model) => {
      const report = JSON.parse((await probe(['probe', '--json'], url, model)).stdout);
      expect(report.logprobs).toBe(false);
      expect(found(report)).toContain('failure logprobs');
      expect(report.findings[0].fix).toContain('return top_logprobs');
    });
  });

  it('a server with placeholder log-probabilities and fewer top_logprobs than a Question has options', async () => {
    await withSimulator({ behaviour: 'sentinels', topLogprobsCap: 2 }, async (url, model) => {
      const report = JSON.parse((await probe(['probe', '--json'], url, model)).stdout);
      expect(report.topLogprobs).toEqual({ asked: 20, returned: 2 });
      expect(found(report)).toEqual(expect.arrayContaining(['failure sentinels', 'failure top-logprobs']));
      const short = report.findings.find((finding: { check: string }) => finding.check === 'top-logprobs');
      expect(short.problem).toContain('"refund-abuse.credibility"');
      expect(short.fix).toContain('engines.openai.topLogprobs to 2');
    });
  });

  it('a server that does not answer: unreachable, and nothing claimed of what it sends', async () => {
    const run = await probe(['probe'], 'http://127.0.0.1:9/v1', 'tiny-judge-2026-01-01', {
      JUDGMENT_OPENAI_RETRIES: '0',
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL [reachable]');
    for (const fact of ['logprobs', 'token ids', 'request ids']) {
      expect(run.stdout).toMatch(new RegExp(`│ ${fact} +│ — \\(no answer\\) +│`));
    }
  });

  it('refuses to probe a connection of another driver, as a usage error', async () => {
    const run = await runBin(['--app', APP, 'probe', 'jev'], {
      FIXTURE_DB: ':memory:',
      TYPESAFE_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(run.stderr).toContain(
      'The Engine connection "jev" uses the jev driver: judgment probe asks openai connections only.',
    );
    expect(run.code).toBe(2);
  });
});
