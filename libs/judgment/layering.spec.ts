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
  'libs/judgment/src/cache/assessment.cache.ts':
    "import { ModuleRef } from '@nestjs/core';\nexport const store = (ref: ModuleRef) => ref.get('CACHE_MANAGER');\n",
  'libs/judgment/src/review/resolution-policy.ts':
    "import { ModuleRef } from '@nestjs/core';\nexport const policy = (ref: ModuleRef) => ref.get('Policy');\n",
  'libs/judgment/src/judgment-core.module.ts':
    "import { ModuleRef } from '@nestjs/core';\nexport const build = (ref: ModuleRef) => ref.create(class {});\n",
  'libs/judgment/src/judgment.discovery.ts':
    "import { DiscoveryService } from '@nestjs/core';\n" +
    'export const find = (discovery: DiscoveryService) => discovery.getProviders();\n',
  'libs/judgment/src/lock/calibration-lock.ts': 'export const lock = 1;\n',
  'libs/judgment/src/signal/signal.guard.ts': 'export class SignalGuard {}\n',
  'libs/judgment/src/routing/calibration.guard.ts': 'export class CalibrationGuard {}\n',
  'libs/judgment/src/routing/decision.router.ts': 'export class DecisionRouter {}\n',
  'libs/judgment/src/decision/decision-plan.ts':
    "export type DecisionPlan = { route: 'act' };\nexport const planDecision = (): DecisionPlan => ({ route: 'act' });\n",
  'libs/judgment/src/recording/asks-guards.ts':
    "import { lock } from '../lock/calibration-lock';\nimport { SignalGuard } from '../signal/signal.guard';\n" +
    "import { CalibrationGuard } from '../routing/calibration.guard';\nexport const r = [lock, SignalGuard, CalibrationGuard];\n",
  'libs/judgment/src/recording/plans.ts':
    "import { planDecision } from '../decision/decision-plan';\nexport const p = planDecision;\n",
  'libs/judgment/src/recording/carries-out.ts':
    "import type { DecisionPlan } from '../decision/decision-plan';\nimport { DecisionRouter } from '../routing/decision.router';\n" +
    'export const c = (router: DecisionRouter, plan: DecisionPlan) => [router, plan];\n',
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

  it('nothing but the CLI reaches the app container: the core module wiring breaks no-service-location too', () => {
    expect(rulesBroken('cache/assessment.cache.ts')).toEqual(['no-service-location']);
    expect(rulesBroken('review/resolution-policy.ts')).toEqual(['no-service-location']);
    expect(rulesBroken('judgment-core.module.ts')).toEqual(['no-service-location']);
  });

  it("the wiring's startup discovery (judgment.discovery.ts) may import DiscoveryService from @nestjs/core", () => {
    expect(rulesBroken('judgment.discovery.ts')).toEqual([]);
  });

  it('recording/ asking a guard or reading the lock breaks no-routing-policy-in-recording', () => {
    expect(rulesBroken('recording/asks-guards.ts', 'lock/calibration-lock.ts')).toEqual([
      'no-routing-policy-in-recording',
    ]);
    expect(rulesBroken('recording/asks-guards.ts', 'signal/signal.guard.ts')).toEqual([
      'no-routing-policy-in-recording',
    ]);
    expect(rulesBroken('recording/asks-guards.ts', 'routing/calibration.guard.ts')).toEqual([
      'no-routing-policy-in-recording',
    ]);
  });

  it('recording/ computing a plan (planDecision) breaks no-plan-computed-in-recording', () => {
    expect(rulesBroken('recording/plans.ts')).toEqual(['no-plan-computed-in-recording']);
  });

  it('recording/ carrying out the plan the DecisionRouter gives (the DecisionPlan type) breaks nothing', () => {
    expect(rulesBroken('recording/carries-out.ts')).toEqual([]);
  });

  it('importing a lower layer breaks nothing', () => {
    expect(rulesBroken('judge/downward.ts')).toEqual([]);
  });
});
