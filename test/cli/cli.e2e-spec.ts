// The `judgment` command line as a real process (test/cli/fixture-cli.ts over the fixture app: SQLite file, the
// real Jev driver talking to the Jev simulator over loopback HTTP).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DataSource } from 'typeorm';
import { JevSimulator, startOpenAiSimulator } from 'nestjs-judgment/simulator';
import { AssessmentRecord, judgmentEntities } from 'nestjs-judgment';
import { Refund } from './fixture-app.module';

const ROOT = join(__dirname, '..', '..');
const KEY = 'sk-cli-SECRET-key';
const LAYA_KEY = 'sk-cli-SECRET-laya';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('judgment CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'judgment-cli-'));
  const database = join(dir, 'app.sqlite');
  const simulator = new JevSimulator({ apiKey: KEY });
  let url: string;

  /** Runs the fixture CLI with the environment of a configured app, plus `env`. */
  const cli = (args: string[], env: Record<string, string | undefined> = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        ['-r', './scripts/register.js', 'test/cli/fixture-cli.ts', ...args],
        {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH,
            FIXTURE_DB: database,
            TYPESAFE_API_KEY: KEY,
            TYPESAFE_BASE_URL: url,
            JUDGMENT_RETENTION_DAYS: '30',
            ...env,
          },
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });

  /** The fixture app's SQLite database, opened with its record table emptied (close it before the CLI runs). */
  const emptyRecords = async () => {
    const dataSource = new DataSource({
      type: 'better-sqlite3',
      database,
      entities: [Refund, ...judgmentEntities],
      synchronize: true,
    });
    await dataSource.initialize();
    const records = dataSource.getRepository(AssessmentRecord);
    await records.clear();
    return { dataSource, records };
  };

  const dataset = (name: string, cases: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(cases));
    return path;
  };
  const subject = (marker: string) => ({ item: 'Lamp', amount: 20, explanation: `It broke. ${marker}` });
  const cases = () =>
    dataset('cases.json', [
      { subject: subject('[[abusive=0.1]]'), expected: 'approve' },
      { subject: subject('[[abusive=0.9]]'), expected: 'reject' },
      { subject: subject('[[abusive=0.45]]'), expected: 'approve' },
    ]);

  beforeAll(async () => {
    url = await simulator.start(0);
  });

  afterAll(async () => {
    await simulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => simulator.clearLog());

  describe('eval', () => {
    it('prints only the report as JSON with --json and exits 0', async () => {
      const run = await cli(['eval', 'refund-abuse', `--dataset=${cases()}`, '--json']);
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout);
      expect(report.skipped).toBe(0);
      expect(report.results).toHaveLength(1);
      expect(report.results[0]).toMatchObject({
        identity: { model: 'jev-1.13.0', decision: 'RefundDecision', decisionVersion: '1', language: null },
        cases: 3,
        unassessed: 0,
        sentToReview: 1,
        automatic: 2,
        correct: 2,
        accuracy: 1,
      });
      expect(report.results[0].reviewRate).toBeCloseTo(1 / 3, 12);
      expect(simulator.requests).toHaveLength(3);
    });

    it('fits a temperature on the openai connection with --fit-temperature, ECE before and after', async () => {
      const openai = await startOpenAiSimulator();
      try {
        const labelled = dataset('truths.json', [
          { subject: subject('[[abusive=0.1]]'), expected: 'approve', truth: { abusive: false } },
          { subject: subject('[[abusive=0.9]]'), expected: 'reject', truth: { abusive: false } },
          { subject: subject('[[abusive=0.2]]'), expected: 'approve', truth: { abusive: true } },
          { subject: subject('[[abusive=0.8]]'), expected: 'reject', truth: { abusive: true } },
        ]);
        const env = { JUDGMENT_ENGINE: 'openai', OPENAI_BASE_URL: openai.url, JUDGMENT_OPENAI_MODEL: openai.model };
        const json = await cli(['eval', 'refund-abuse', `--dataset=${labelled}`, '--fit-temperature', '--json'], env);
        expect(json.code).toBe(0);
        const [fit] = JSON.parse(json.stdout).temperatures;
        expect(fit).toMatchObject({ connection: 'openai', model: openai.model, cases: 4 });
        // Half the confident answers are wrong: the fit flattens them (T > 1) and the calibration error falls.
        expect(fit.temperature).toBeGreaterThan(1);
        expect(fit.eceAfter).toBeLessThan(fit.eceBefore);
        const text = await cli(['eval', 'refund-abuse', `--dataset=${labelled}`, '--fit-temperature'], env);
        expect(text.stdout).toContain('Temperature scaling (fitted to the Likelihood truths)');
        expect(text.stdout).toMatch(/engines\.openai\.temperatureScaling: \d/);
        // The environment variable that sets it, and a small sample said in words.
        expect(text.stdout).toMatch(/or the variable JUDGMENT_OPENAI_TEMPERATURE_SCALING=\d/);
        expect(text.stdout).toContain('the temperature of openai rests on n = 4 answers: unreliable below 100.');
      } finally {
        await openai.stop();
      }
    });

    it('prints tables for each named Decision, without a progress bar when stdout is not a terminal', async () => {
      const run = await cli([
        'eval',
        'RefundAbuse',
        `--dataset=${cases()}`,
        '--decision=RefundDecision',
        '--decision=strict-refund',
      ]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Review rate');
      // One spelling for a Judgment that declares no language, in the summary table and in each result's heading.
      expect(run.stdout).toContain('RefundDecision v1 · jev-1.13.0 · any language · questions ');
      expect(run.stdout).toMatch(/│ RefundDecision v1 +│ any language +│/);
      expect(run.stdout).not.toMatch(/unknown language|│ — +│ 3 /);
      expect(run.stdout).toContain('strict-refund · jev-1.13.0');
      expect(run.stdout).toContain('33.3%');
      expect(run.stdout).toContain('0.9–1.0');
      expect(run.stdout).toContain('100.0%');
      expect(run.stdout + run.stderr).not.toContain('Engine rounds');
    });

    it('--html makes the page’s folder, and refuses a path it cannot write before asking the Engine', async () => {
      const page = join(dir, 'reports', 'weekly', 'report.html');
      const written = await cli(['eval', 'refund-abuse', `--dataset=${cases()}`, `--html=${page}`]);
      expect(written.code).toBe(0);
      expect(readFileSync(page, 'utf8')).toContain('<h1>Calibration of refund-abuse</h1>');
      simulator.clearLog();

      const blocker = join(dir, 'not-a-folder');
      writeFileSync(blocker, '');
      const refused = await cli(['eval', 'refund-abuse', `--dataset=${cases()}`, `--html=${blocker}/report.html`]);
      expect(refused.code).toBe(2); // as other usage errors
      expect(refused.stderr).toContain(
        `--html ${relative(ROOT, blocker)}/report.html cannot be written: its folder cannot be made (a file stands ` +
          'where its folder should be). Give a file path in a folder you can write.',
      );
      expect(refused.stderr).not.toContain(` ${dir}`); // no absolute path
      expect(refused.stdout).toBe('');
      expect(simulator.requests).toHaveLength(0);

      const folder = await cli(['eval', 'refund-abuse', `--dataset=${cases()}`, `--html=${dir}`, '--json']);
      expect(folder.code).toBe(2);
      expect(JSON.parse(folder.stdout).error).toContain('cannot be written: it is a folder.');
      expect(simulator.requests).toHaveLength(0);
    });

    it('prints {"error": …} and exits 1 on a labelled Outcome that is not one, before asking the Engine', async () => {
      const typo = dataset('typo.json', [{ subject: subject(''), expected: 'aprove' }]);
      const run = await cli(['eval', 'refund-abuse', `--dataset=${typo}`, '--json']);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({
        error:
          'The case at index 0 expects "aprove", which is not an Outcome of RefundDecision: expected "approve", ' +
          '"escalate" or "reject".',
      });
      expect(simulator.requests).toHaveLength(0);
    });

    it('exits 2 as usage errors do for a name that is no registered Judgment, listing the registered names', async () => {
      const run = await cli(['eval', 'nope', `--dataset=${cases()}`]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('Error: No Judgment is registered under the name "nope". Registered: refund-abuse.');
      expect(run.stderr).not.toContain('RefundAbuse');
      const decision = await cli(['eval', 'refund-abuse', `--dataset=${cases()}`, '--decision=Nope', '--json']);
      expect(decision.code).toBe(2);
      expect(JSON.parse(decision.stdout).error).toMatch(
        /^No Decision is registered under the name "Nope"\. Registered: /,
      );
    });

    it('reports an unknown --engine as a JSON error', async () => {
      const run = await cli(['eval', 'refund-abuse', `--dataset=${cases()}`, '--engine=nope', '--json']);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout).error).toMatch(/^The Engine connection "nope" is not configured/);
    });
  });

  describe('status', () => {
    it('exits 0 when the default connection is configured, showing each connection without its key', async () => {
      const run = await cli(['status', '--json'], { LAYA_API_KEY: LAYA_KEY });
      expect(run.code).toBe(0);
      const status = JSON.parse(run.stdout);
      expect(status).toMatchObject({ default: 'jev', configured: true });
      expect(status.connections[0]).toEqual({
        connection: 'jev',
        default: true,
        driver: 'jev',
        keyPresent: true,
        model: 'jev-1.13.0',
        pinned: true,
        url,
        timeout: 10,
        retries: 3,
        maxLabels: null,
        budget: null,
        limits: null,
        window: null,
        used: 0,
        price: null,
        configured: true,
        problem: null,
      });
      expect(status.connections[1]).toMatchObject({ connection: 'laya', keyPresent: true, pinned: false });
      // The records' cost per decision is read from SQLite too (none of this app's connections declares a price).
      expect(status.costs).toMatchObject({ window: '30d', problem: null });
      for (const cost of status.costs.judgments) expect(cost).toMatchObject({ currency: null, total: null });
      expect(run.stdout + run.stderr).not.toContain('SECRET');
      expect(simulator.requests).toHaveLength(0);
    });

    it('shows each connection’s limits, where they are counted and the current window’s usage', async () => {
      const run = await cli(['status', '--json'], {
        LAYA_API_KEY: LAYA_KEY,
        JUDGMENT_JEV_LIMIT_REQUESTS: '1200/min',
        JUDGMENT_JEV_LIMIT_TOKENS: '400000/min',
      });
      expect(run.code).toBe(0);
      const status = JSON.parse(run.stdout);
      expect(status.connections[0]).toMatchObject({
        limits: { requestsPerMinute: 1200, tokensPerMinute: 400_000, windowSeconds: 60, store: 'process' },
        window: { requests: 0, tokens: 0, windowEndsInMs: 0 },
      });
      const text = await cli(['status'], { LAYA_API_KEY: LAYA_KEY, JUDGMENT_JEV_LIMIT_REQUESTS: '1200/min' });
      expect(text.stdout).toMatch(/jev .* 1200 requests\/min .* 60 s .* this process only .* 0 of 1200/);
    });

    it('sizes its columns to their content: a short status is not padded to the width of a long problem', async () => {
      const run = await cli(['status'], { LAYA_API_KEY: LAYA_KEY });
      const header = run.stdout.split('\n').find((line) => line.includes('Status'))!;
      expect(header).toMatch(/│ Status +│$/);
      expect(/│ Status +│$/.exec(header)![0].length).toBeLessThanOrEqual('│ Status │'.length + 1);
    });

    it('refuses a limit without its time unit, naming the variable', async () => {
      const run = await cli(['status'], { LAYA_API_KEY: LAYA_KEY, JUDGMENT_JEV_LIMIT_REQUESTS: '1200' });
      expect(run.code).not.toBe(0);
      expect(run.stdout + run.stderr).toContain(
        'JUDGMENT_JEV_LIMIT_REQUESTS must be a positive whole number with its time unit, such as 1200/min or 20/s',
      );
    });

    it('exits 1 without a key for a remote url, still listing every connection and what is missing, never a key', async () => {
      const run = await cli(['status'], {
        TYPESAFE_API_KEY: undefined,
        TYPESAFE_BASE_URL: 'https://jev.example.com',
        LAYA_API_KEY: LAYA_KEY,
      });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/jev \(default\) .* none .* jev-1\.13\.0 \(pinned\)/);
      expect(run.stdout).toContain('has no API key');
      expect(run.stdout).toContain('The default connection "jev" is not configured.');
      expect(run.stdout).toMatch(/laya .* present/);
      expect(run.stdout + run.stderr).not.toContain('SECRET');
    });
  });

  describe('status --ping (issue 31)', () => {
    const env = { LAYA_API_KEY: LAYA_KEY, LAYA_BASE_URL: 'http://127.0.0.1:1' };

    it('asks each configured connection one request and reports whether it answered', async () => {
      simulator.clearLog();
      const run = await cli(['status', '--ping', '--json'], env);
      expect(run.code).toBe(0);
      const status = JSON.parse(run.stdout);
      expect(status.connections[0].ping).toEqual({
        reachable: true,
        ms: expect.any(Number),
        model: 'jev-1.13.0',
        problem: null,
      });
      expect(status.connections[1].ping).toMatchObject({ reachable: false, model: null });
      expect(status.connections[1].ping.problem).toMatch(/could not be reached.*127\.0\.0\.1:1/);
      expect(simulator.requests).toHaveLength(1);
      expect(run.stdout + run.stderr).not.toContain('SECRET');
    });

    it('says first that it costs one request per connection, then prints each answer', async () => {
      const run = await cli(['status', '--ping'], env);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        /^Pinging 2 connections: one request each, billed like any other \(a 429 or 5xx answer is retried up to the connection's retries\)\./,
      );
      expect(run.stdout).toMatch(/jev: answered in \d+ ms as jev-1\.13\.0/);
      expect(run.stdout).toMatch(/laya: not reachable: The Engine could not be reached/);
      expect(run.stdout).toContain('The default connection "jev" is configured and answered.');
    });

    it('exits 1 when the default connection does not answer, naming the URL it asked', async () => {
      const run = await cli(['status', '--ping', '--json'], { ...env, TYPESAFE_BASE_URL: `${url}/v1/systemone` });
      expect(run.code).toBe(1);
      const status = JSON.parse(run.stdout);
      expect(status.connections[0].ping.reachable).toBe(false);
      expect(status.connections[0].ping.problem).toContain(`POST ${url}/v1/systemone/v1/systemone`);
      expect(status.connections[0].ping.problem).toContain('The driver appends /v1/systemone to engines.jev.url');
    });

    it('asks nothing without --ping', async () => {
      simulator.clearLog();
      const run = await cli(['status', '--json'], env);
      expect(JSON.parse(run.stdout).connections[0]).not.toHaveProperty('ping');
      expect(simulator.requests).toHaveLength(0);
    });
  });

  describe('prune', () => {
    it('deletes the records older than the retention and prints how many', async () => {
      const { dataSource, records } = await emptyRecords();
      const base = {
        judgment: 'refund-abuse',
        evidenceFingerprint: 'a'.repeat(64),
        untrustedPaths: [],
        questionsFingerprint: 'b'.repeat(64),
      };
      const saved = await records.save([records.create(base), records.create(base), records.create(base)]);
      const old = new Date(Date.now() - 40 * 86_400_000);
      await records.update([saved[0].id, saved[1].id], { createdAt: old });
      await dataSource.destroy();

      const run = await cli(['prune']);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('Pruned 2 records created more than 30 days ago.\n');
    });
  });

  describe('review:expire', () => {
    it("resolves the Reviews past their Decision's deadline with onExpiry (SQLite) and prints how many", async () => {
      const { dataSource, records } = await emptyRecords();
      const hour = 3_600_000;
      const inReview = (deadline: Date | null) =>
        records.create({
          judgment: 'refund-abuse',
          evidenceFingerprint: 'a'.repeat(64),
          untrustedPaths: [],
          questionsFingerprint: 'b'.repeat(64),
          decision: 'RefundDecision',
          outcomeType: 'RefundDecision',
          outcome: 'escalate',
          reviewRequestedAt: new Date(Date.now() - 50 * hour),
          reviewDeadlineAt: deadline,
        });
      const [past, future, none] = await records.save([
        inReview(new Date(Date.now() - 2 * hour)),
        inReview(new Date(Date.now() + 2 * hour)),
        inReview(null),
      ]);
      await dataSource.destroy();

      const run = await cli(['review:expire']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('Expired 1 Review past the deadline (resolved with their onExpiry Outcome).\n');

      await dataSource.initialize();
      const rows = await records.findBy({});
      const byId = new Map(rows.map((row) => [row.id, row]));
      expect(byId.get(past.id)).toMatchObject({ resolution: 'reject', resolverType: 'system', resolverId: 'deadline' });
      expect(byId.get(future.id)!.resolvedAt).toBeNull();
      expect(byId.get(none.id)!.resolvedAt).toBeNull();
      await dataSource.destroy();
    });
  });
});
