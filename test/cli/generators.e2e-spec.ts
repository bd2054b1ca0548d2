// make:judgment and make:decision as real processes: the files they write compile against the repo's tsconfig
// (so `nestjs-judgment` resolves as in an app), and the generated Decision holds no numbers and throws until calibrated.
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const cli = (args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', './scripts/register.js', 'test/cli/fixture-cli.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, TYPESAFE_API_KEY: 'sk-generators' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });

/** TypeScript errors in `files`, compiled with the repo's tsconfig (paths included). */
function typeErrors(files: string[]): string[] {
  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const program = ts.createProgram({ rootNames: files, options: { ...options, noEmit: true } });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file && files.includes(diagnostic.file.fileName))
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('judgment generators', () => {
  // Under the repo (so `nestjs-judgment` resolves), in a `tmp` folder the type-check and lint of the repo skip.
  const project = join(ROOT, 'test', 'cli', 'tmp', `generators-${process.pid}`);
  const src = join(project, 'src');
  const judgmentsDir = relative(ROOT, join(src, 'judgments'));
  const decisionsDir = relative(ROOT, join(src, 'decisions'));
  const judgmentFile = join(src, 'judgments', 'refund-abuse.judgment.ts');
  const decisionFile = join(src, 'decisions', 'refund.decision.ts');

  beforeAll(async () => {
    mkdirSync(join(src, 'entities'), { recursive: true });
    mkdirSync(join(src, 'enums'), { recursive: true });
    writeFileSync(
      join(src, 'entities', 'refund.entity.ts'),
      `import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity()
export class Refund {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'text' })
  explanation!: string;
}
`,
    );
    writeFileSync(
      join(src, 'enums', 'refund-outcome.ts'),
      `export enum RefundOutcome {
  Approve = 'approve',
  Escalate = 'escalate',
  Reject = 'reject',
}
`,
    );
    const judgment = await cli(['make:judgment', 'RefundAbuse', '--subject=Refund', `--dir=${judgmentsDir}`]);
    expect(judgment).toMatchObject({ code: 0, stdout: `Created ${relative(ROOT, judgmentFile)}\n` });
    const decision = await cli([
      'make:decision',
      'RefundDecision',
      '--judgment=RefundAbuse',
      '--outcome=RefundOutcome',
      `--dir=${decisionsDir}`,
    ]);
    expect(decision).toMatchObject({ code: 0, stdout: `Created ${relative(ROOT, decisionFile)}\n` });
  }, 30_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('writes a Judgment and a Decision that compile against nestjs-judgment', () => {
    expect(typeErrors([judgmentFile, decisionFile])).toEqual([]);
  }, 60_000);

  it('constructs the generated Judgment with the Subject entity, so a dataset can build it', async () => {
    const { RefundAbuse } = await import(judgmentFile);
    const { Refund } = await import(join(src, 'entities', 'refund.entity.ts'));
    expect(Reflect.getMetadata('design:paramtypes', RefundAbuse)).toEqual([Refund]);
    expect(readFileSync(judgmentFile, 'utf8')).toContain(`@Judgment({ name: 'refund-abuse' })`);
  });

  it('writes a Decision without a single number that throws until it is calibrated', async () => {
    expect(readFileSync(decisionFile, 'utf8')).not.toMatch(/[0-9]/);
    const { RefundDecision } = await import(decisionFile);
    expect(() => new RefundDecision().decide(undefined, undefined)).toThrow(
      'RefundDecision is not calibrated yet: run judgment eval RefundAbuse --dataset=<labelled cases> ' +
        '--decision=RefundDecision',
    );
  });

  it('refuses to overwrite a file unless --force is given', async () => {
    // A file of its own: the other tests import the generated refund-abuse.judgment.ts.
    const edited = join(src, 'judgments', 'refund-claim.judgment.ts');
    writeFileSync(edited, '// edited by hand\n');
    const refused = await cli(['make:judgment', 'RefundClaim', '--subject=Refund', `--dir=${judgmentsDir}`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${relative(ROOT, edited)} already exists: pass --force to overwrite it.`);
    expect(readFileSync(edited, 'utf8')).toBe('// edited by hand\n');

    const forced = await cli(['make:judgment', 'RefundClaim', '--subject=Refund', `--dir=${judgmentsDir}`, '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(edited, 'utf8')).toContain('export class RefundClaim implements Judgment');
  }, 30_000);

  it('names what is missing when the Subject class cannot be found', async () => {
    const run = await cli(['make:judgment', 'OrderAbuse', '--subject=Order', `--dir=${judgmentsDir}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`No file under ${relative(ROOT, src)} exports the class Order: create it first`);
  }, 30_000);
});

describe('judgment generators in an ESM app (issue 31)', () => {
  // An app of its own: "type": "module" and module nodenext, where relative imports need their .js suffix.
  const project = join(ROOT, 'test', 'cli', 'tmp', `generators-esm-${process.pid}`);
  const src = join(project, 'src');
  const judgmentFile = join(src, 'judgments', 'refund-abuse.judgment.ts');
  const decisionFile = join(src, 'decisions', 'refund.decision.ts');
  const compilerOptions = {
    target: 'ES2023',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    skipLibCheck: true,
  };

  beforeAll(async () => {
    mkdirSync(join(src, 'entities'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'esm-app', type: 'module' }));
    // Comments and a trailing comma, as tsconfig files have them.
    writeFileSync(
      join(project, 'tsconfig.json'),
      `{\n  // an ESM Nest app\n  "compilerOptions": ${JSON.stringify(compilerOptions)},\n  "include": ["src"],\n}\n`,
    );
    writeFileSync(join(src, 'entities', 'refund.entity.ts'), 'export class Refund {\n  explanation!: string;\n}\n');
    writeFileSync(
      join(src, 'entities', 'refund-outcome.ts'),
      "export enum RefundOutcome {\n  Approve = 'approve',\n}\n",
    );
    const dir = (folder: string) => `--dir=${relative(ROOT, join(src, folder))}`;
    expect((await cli(['make:judgment', 'RefundAbuse', '--subject=Refund', dir('judgments')])).code).toBe(0);
    const decision = await cli([
      'make:decision',
      'RefundDecision',
      '--judgment=RefundAbuse',
      '--outcome=RefundOutcome',
      dir('decisions'),
    ]);
    expect(decision.code).toBe(0);
  }, 30_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('writes relative imports with their .js suffix, detected from package.json and tsconfig', () => {
    expect(readFileSync(judgmentFile, 'utf8')).toContain("import { Refund } from '../entities/refund.entity.js';");
    const decision = readFileSync(decisionFile, 'utf8');
    expect(decision).toContain("import { RefundAbuse } from '../judgments/refund-abuse.judgment.js';");
    expect(decision).toContain("import { RefundOutcome } from '../entities/refund-outcome.js';");
    expect(decision).toContain("from 'nestjs-judgment';");
  });

  it('writes files that compile as ES modules under module nodenext', () => {
    const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
    const paths = Object.fromEntries(
      Object.entries(config.compilerOptions.paths as Record<string, string[]>).map(([name, [file]]) => [
        name,
        [join(ROOT, file)],
      ]),
    );
    const { options } = ts.convertCompilerOptionsFromJson({ ...compilerOptions, paths, noEmit: true }, project);
    const files = [judgmentFile, decisionFile];
    const program = ts.createProgram({ rootNames: files, options });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file && files.includes(diagnostic.file.fileName))
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(errors).toEqual([]);
  }, 60_000);
});
