// The `judgment` bin as a real process: it loads the app's root module from `--app <file>#Export` or from the
// `judgment.app` field of the package.json in the current folder, and says what it found when the file or export
// is not there (exit 2, a usage error).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { JevSimulator } from 'nestjs-judgment/simulator';
import { clearPrefix } from '../support/redis';
import { ROOT, runBin } from './cli-process';

const KEY = 'sk-cli-bin';
const FIXTURE = 'test/cli/fixture-app.module.ts';

describe('judgment bin', () => {
  const dir = mkdtempSync(join(tmpdir(), 'judgment-bin-'));
  const simulator = new JevSimulator({ apiKey: KEY });
  let env: Record<string, string>;

  beforeAll(async () => {
    const url = await simulator.start(0);
    env = { FIXTURE_DB: join(dir, 'app.sqlite'), TYPESAFE_API_KEY: KEY, TYPESAFE_BASE_URL: url };
  });

  afterAll(async () => {
    await clearPrefix(`cli-bin-${process.pid}`);
    await simulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs status over the module named by --app, asking no Engine', async () => {
    const run = await runBin(['--app', `${FIXTURE}#FixtureAppModule`, 'status', '--json'], env);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ default: 'jev', configured: true });
    expect(simulator.requests).toHaveLength(0);
  });

  it('finds the module in the "judgment" field of the package.json in the current folder', async () => {
    const app = `${relative(dir, join(ROOT, FIXTURE))}#FixtureAppModule`;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'an-app', judgment: { app } }));

    const run = await runBin(['status', '--json'], env, dir);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ default: 'jev', configured: true });
  });

  it('exits 2 naming the file when --app points at a file that does not exist', async () => {
    const run = await runBin(['status', '--app', 'dist/app.module.js#AppModule'], env);

    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `Error: The app module file dist/app.module.js does not exist (looked for ${join(ROOT, 'dist', 'app.module.js')}).`,
    );
  });

  it('exits 2 listing the exports it found when the file has no such export', async () => {
    const run = await runBin(['status', '--json', '--app', `${FIXTURE}#AppModule`], env);

    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error).toBe(
      `${FIXTURE} has no export named AppModule: it exports FixtureAppModule, QueuedFixtureAppModule, Refund, ` +
        `RefundAbuse, RefundDecision, RefundOutcome, StrictRefundDecision; pass --app ${FIXTURE}#FixtureAppModule.`,
    );
  });

  it('reports an app that cannot start and ends, though the app left connections open', async () => {
    const run = await runBin(['--app', `${FIXTURE}#QueuedFixtureAppModule`, 'status', '--json'], {
      ...env,
      FIXTURE_DB: dir, // a folder: SQLite cannot open it
      FIXTURE_QUEUE_PREFIX: `cli-bin-${process.pid}`,
    });

    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({ error: 'unable to open database file' });
  });
});
