import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// The layer rules of .dependency-cruiser.cjs, run by the real depcruise CLI over a small planted library, so each
// rule is shown to fire (with its name) and legitimate imports are shown to pass.
const repository = join(__dirname, '..', '..');
const planted: Record<string, string> = {
  'tsconfig.json': '{}',
  'libs/judgment/src/engines/engine.manager.ts': 'export const engines = 1;\n',
  'libs/judgment/src/testing/kit.ts': 'export const kit = 1;\n',
  'libs/judgment/src/assessment/upward.ts':
    "import { engines } from '../engines/engine.manager';\nexport const a = engines;\n",
  'libs/judgment/src/judge/uses-testing.ts': "import { kit } from '../testing/kit';\nexport const j = kit;\n",
  'libs/judgment/src/judge/downward.ts':
    "import { engines } from '../engines/engine.manager';\nexport const d = engines;\n",
  'libs/judgment/src/queue/lazy.ts':
    "export function lazy(): unknown {\n  return require('../judge/downward');\n}\n" +
    "export function optionalPeer(): unknown {\n  return require('@nestjs/bullmq');\n}\n",
  'libs/judgment/src/calibration/sibling.ts': "import { lazy } from '../queue/lazy';\nexport const c = lazy;\n",
  'libs/judgment/src/questions/one.ts': "import type { Two } from './two';\nexport interface One { two?: Two }\n",
  'libs/judgment/src/questions/two.ts': "import type { One } from './one';\nexport interface Two { one?: One }\n",
  'libs/judgment/src/judge/locates.ts':
    "import { ModuleRef } from '@nestjs/core';\nexport const find = (ref: ModuleRef) => ref.get('X');\n",
  'libs/judgment/src/cli/loads-app.ts':
    "import { ModuleRef } from '@nestjs/core';\nexport const find = (ref: ModuleRef) => ref.get('X');\n",
  'libs/judgment/src/engines/ambient.ts':
    "import { AsyncLocalStorage } from 'node:async_hooks';\nexport const lane = new AsyncLocalStorage<string>();\n",
};

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

let violations: Violation[];
let workspace: string;

beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'judgment-layers-'));
  for (const [file, text] of Object.entries(planted)) {
    mkdirSync(dirname(join(workspace, file)), { recursive: true });
    writeFileSync(join(workspace, file), text);
  }
  const cli = join(repository, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const config = join(repository, '.dependency-cruiser.cjs');
  const run = spawnSync(process.execPath, [cli, 'libs/judgment/src', '--config', config, '--output-type', 'json'], {
    cwd: workspace,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (!run.stdout) throw new Error(`depcruise printed nothing: ${run.stderr}`);
  violations = JSON.parse(run.stdout).summary.violations;
});

afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const rulesBroken = (from: string, to?: string) =>
  violations
    .filter((v) => v.from === `libs/judgment/src/${from}` && (to === undefined || v.to === `libs/judgment/src/${to}`))
    .map((v) => v.rule.name);

describe('layer rules (dependency-cruiser)', () => {
  it('a layer importing a higher layer breaks that layer’s upward rule', () => {
    expect(rulesBroken('assessment/upward.ts')).toEqual(['layer-assessment-imports-upward']);
  });

  it('production code importing testing/ breaks no-production-import-of-testing', () => {
    expect(rulesBroken('judge/uses-testing.ts')).toContain('no-production-import-of-testing');
  });

  it('a lazy require() of our own file breaks no-relative-require; requiring a package is allowed', () => {
    expect(rulesBroken('queue/lazy.ts')).toEqual(['no-relative-require']);
  });

  it('folders of one layer importing each other break the sibling rule', () => {
    expect(rulesBroken('calibration/sibling.ts')).toEqual(['layer-services-imports-sibling']);
  });

  it('a cycle made only of type imports breaks no-circular', () => {
    expect(rulesBroken('questions/one.ts', 'questions/two.ts')).toEqual(['no-circular']);
  });

  it('AsyncLocalStorage (node:async_hooks) breaks no-ambient-context: pass it with the call instead', () => {
    expect(violations.filter((v) => v.from === 'libs/judgment/src/engines/ambient.ts').map((v) => v.rule.name)).toEqual(
      ['no-ambient-context'],
    );
  });

  it('@nestjs/core (ModuleRef) below the CLI breaks no-service-location; the CLI loading an app may use it', () => {
    expect(rulesBroken('judge/locates.ts')).toEqual(['no-service-location']);
    expect(rulesBroken('cli/loads-app.ts')).toEqual([]);
  });

  it('importing a lower layer breaks nothing', () => {
    expect(rulesBroken('judge/downward.ts')).toEqual([]);
  });
});
