// `judgment check` as a real process: the demo app (clean), a fixture app with one of each finding, an app with only
// warnings, and apps that cannot start. No database, Redis or network is touched by the check itself.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { judgmentMigrations } from 'nestjs-judgment';
import { PG, recreateDatabase } from '../support/postgres';
import { ROOT, type Run, runBin } from './cli-process';

/** The demo's own command line (apps/support-desk/src/cli.ts), as a fresh clone runs it: SQLite in memory. */
const demoCli = (args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', join(ROOT, 'scripts', 'register.js'), join(ROOT, 'apps', 'support-desk', 'src', 'cli.ts'), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, SQLITE_PATH: ':memory:' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });

const FIXTURE = 'test/cli/check-fixture.module.ts';

describe('judgment check', () => {
  it('the demo app is clean: no findings, exit 0', async () => {
    const run = await demoCli(['check']);
    expect(run.stdout).toContain('Checked 3 Judgments and 3 Decisions: 0 failures, 0 warnings.');
    expect(run.code).toBe(0);
    expect(JSON.parse((await demoCli(['check', '--json'])).stdout)).toMatchObject({ failures: 0, findings: [] });
  });
  it('reports one of each finding with --json (only JSON on stdout), failures first, and exits 1', async () => {
    const run = await runBin(['--app', `${FIXTURE}#CheckFixtureModule`, 'check', '--json'], {});
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ failures: 4, warnings: 6 });
    const found = report.findings.map(
      (f: { severity: string; rule: string; judgment: string | null; decision: string | null; key: string | null }) =>
        `${f.severity} ${f.rule} ${f.judgment ?? f.decision} ${f.key ?? '-'}`,
    );
    expect(found).toEqual([
      'failure questions one-option -',
      'failure connection too-many-for-laya -',
      'failure default-decision wrong-default -',
      'failure decision broken-thresholds -',
      'warning negative-likelihood misleading legit',
      'warning computation misleading total',
      'warning likelihood-set misleading spam',
      'warning evidence-path misleading tone',
      'warning unguarded-rating unguarded severity',
      'warning unreadable-questions needs-subject -',
    ]);
    for (const finding of report.findings) expect(finding.fix).toMatch(/\w/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints each finding with the Judgment, the key and the fix for a person', async () => {
    const run = await runBin(['--app', `${FIXTURE}#CheckFixtureModule`, 'check'], {});
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('too-many-for-laya\n  FAIL [connection]');
    expect(run.stdout).toContain('"team" offers 4');
    expect(run.stdout).toContain('WARN [evidence-path] "tone" The question names `request.explanation`');
    expect(run.stdout).toContain('Fix: Show `request.explanation` in evidence()');
    expect(run.stdout).toContain('Checked 6 Judgments and 1 Decision: 4 failures, 6 warnings.');
  });

  it('the README shows output that this fixture prints', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = /```text\n(misleading\n[\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(shown.split('\n').length).toBeGreaterThan(3);
    const run = await runBin(['--app', `${FIXTURE}#CheckFixtureModule`, 'check'], {});
    for (const line of shown.split('\n').filter((l) => l !== '')) expect(run.stdout).toContain(line);
  });

  it('warnings alone exit 0; the app started and logged them once on stderr', async () => {
    const run = await runBin(['--app', `${FIXTURE}#WarningsFixtureModule`, 'check', '--json'], {});
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ failures: 0, warnings: 6 });
    expect(run.stderr.match(/judgment check: 6 Questions may mislead/g)).toHaveLength(1);
  });

  it('an app whose files cannot load is one startup failure, exit 1, no stack trace', async () => {
    const run = await runBin(['--app', 'test/cli/check-broken.module.ts#BrokenAppModule', 'check', '--json'], {});
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.findings).toEqual([
      expect.objectContaining({
        severity: 'failure',
        rule: 'startup',
        problem: expect.stringMatching(/"maybe" for Review/),
      }),
    ]);
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
  });

  it('an app whose Engine connection is not configured is one startup failure naming it', async () => {
    const run = await runBin(['--app', 'test/cli/fixture-app.module.ts#FixtureAppModule', 'check'], {
      TYPESAFE_BASE_URL: 'https://api.typesafe.ai',
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL \[startup\] The app cannot start: The Engine connection "jev" has no API key/);
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
  });

  describe('the records of an app with persistence on', () => {
    const DATABASE = 'judgment_cli_check_schema';
    const env = { JUDGMENT_TEST_PG_PORT: String(PG.port), CHECK_SCHEMA_DATABASE: DATABASE };
    const APP = 'test/cli/check-schema.module.ts#CheckSchemaModule';

    beforeEach(() => recreateDatabase(DATABASE));

    it('a database without the package tables is a failure naming the table and judgmentMigrations', async () => {
      const run = await runBin(['--app', APP, 'check', '--json'], env);
      expect(run.code).toBe(1);
      const report = JSON.parse(run.stdout);
      expect(report).toMatchObject({ judgments: ['schema-note'], failures: 1, warnings: 0 });
      expect(report.findings).toEqual([
        expect.objectContaining({
          severity: 'failure',
          rule: 'schema',
          problem: expect.stringMatching(/no table judgment_assessments/),
          fix: expect.stringMatching(/judgmentMigrations/),
        }),
      ]);
      const text = await runBin(['--app', APP, 'check'], env);
      expect(text.stdout).toMatch(/FAIL \[schema\] The database has no table judgment_assessments/);
    });

    it('a migrated database passes', async () => {
      const dataSource = await new DataSource({
        ...PG,
        database: DATABASE,
        migrations: judgmentMigrations,
      }).initialize();
      await dataSource.runMigrations();
      await dataSource.destroy();
      const run = await runBin(['--app', APP, 'check', '--json'], env);
      expect(JSON.parse(run.stdout)).toMatchObject({ failures: 0, findings: [] });
      expect(run.code).toBe(0);
    });
    it('a Decision that requires several reviewers needs the votes table: its absence is a failure naming both', async () => {
      const dataSource = await new DataSource({
        ...PG,
        database: DATABASE,
        migrations: judgmentMigrations,
      }).initialize();
      await dataSource.runMigrations();
      const reviewers = { ...env, CHECK_SCHEMA_REVIEWERS: '2' };
      expect(JSON.parse((await runBin(['--app', APP, 'check', '--json'], reviewers)).stdout)).toMatchObject({
        failures: 0,
      });
      await dataSource.query('DROP TABLE judgment_review_votes');
      await dataSource.destroy();
      const run = await runBin(['--app', APP, 'check', '--json'], reviewers);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout).findings).toEqual([
        expect.objectContaining({
          severity: 'failure',
          rule: 'schema',
          problem: expect.stringMatching(
            /no table judgment_review_votes, which paired-note \(review.reviewers 2\) needs .*ReviewVotes1765530000000/,
          ),
        }),
      ]);
      // One reviewer: the table is not needed.
      expect(JSON.parse((await runBin(['--app', APP, 'check', '--json'], env)).stdout)).toMatchObject({ failures: 0 });
    });
  });
});
