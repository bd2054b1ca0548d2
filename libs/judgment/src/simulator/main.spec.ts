// The `judgment-jev-simulator` bin as a real child process.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');
const BIN = 'libs/judgment/src/simulator/main.ts';

interface Bin {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function runBin(args: string[], env: Record<string, string> = {}): Bin {
  const child = spawn(process.execPath, ['-r', './scripts/register.js', BIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

/** Resolves with the URL of the bin's ready line. */
async function listening(bin: Bin): Promise<string> {
  const ready = /^Jev simulator \((jev|laya|openai) mode\) listening on (http:\/\/\S+)$/m;
  while (!ready.test(bin.stdout())) {
    const exited = await Promise.race([once(bin.child.stdout!, 'data').then(() => false), bin.exit.then(() => true)]);
    if (exited && !ready.test(bin.stdout())) throw new Error(`the bin exited before listening: ${bin.stderr()}`);
  }
  return ready.exec(bin.stdout())![2];
}

describe('judgment-jev-simulator', () => {
  it('prints one ready line with its URL, answers there, and exits 0 on SIGTERM', async () => {
    const bin = runBin(['--port', '0', '--mode', 'laya', '--latency-ms', '1']);
    const url = await listening(bin);
    expect(bin.stdout()).toMatch(/^Jev simulator \(laya mode\) listening on http:\/\/127\.0\.0\.1:\d+\n/);

    const reply = await fetch(`${url}/v1/systemone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'hi', questions: { spam: { type: 'noul', instructions: 'Spam?' } } }),
    });
    expect(((await reply.json()) as { model: string }).model).toBe('laya-rl-agent');

    bin.child.kill('SIGTERM');
    expect(await bin.exit).toBe(0);
  });

  it.each(['jev', 'laya', 'openai'])(
    'says in its %s banner that unmarked text gets deterministic but meaningless answers (issue 31)',
    async (mode) => {
      const bin = runBin(['--port', '0', '--mode', mode]);
      await listening(bin);
      await new Promise((resolve) => setTimeout(resolve, 100));
      bin.child.kill('SIGTERM');
      await bin.exit;
      const [, notice] = bin.stdout().split('\n');
      expect(notice).toBe(
        'Its answers are made up from a hash of the text: the same text always gets the same answer, but it means ' +
          'nothing and judges nothing. Write markers such as [[abusive=0.9]] in the text to choose the answers.',
      );
    },
  );

  it('takes its settings from the JEV_SIMULATOR_* variables when no flag is given', async () => {
    const bin = runBin([], { JEV_SIMULATOR_PORT: '0', JEV_SIMULATOR_KEY: 'local-key', JEV_SIMULATOR_VERBOSE: '1' });
    const url = await listening(bin);
    expect((await fetch(`${url}/v1/models`)).status).toBe(403);
    expect((await fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer local-key' } })).status).toBe(200);
    bin.child.kill('SIGINT');
    expect(await bin.exit).toBe(0);
    expect(bin.stdout()).toMatch(/ GET \/v1\/models 200\n/);
  });

  it.each([
    [['--port', '0', '--latency'], 'Unknown flag --latency.'],
    [['--port', 'soon'], '--port must be a whole number from 0 to 65535; got "soon".'],
    [['--port', '0', '--latency-ms', '-5'], '--latency-ms must be a whole number of 0 or more; got "-5".'],
  ])('exits 2 naming the flag when given %j', async (args, message) => {
    const bin = runBin(args);
    expect(await bin.exit).toBe(2);
    expect(bin.stderr()).toContain(message);
    expect(bin.stdout()).toBe('');
  });
});
