// The package's entry points: the application's root API stays small (at most 70 exports, as the Nest libraries we
// model ourselves on export 16–50), and package.json, tsconfig and Jest name the same entry points, each once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const repository = join(__dirname, '..', '..');
const { entryPointExports } = require(join(repository, 'scripts', 'public-api.js')) as {
  entryPointExports(): Array<{ name: string; exported: Array<{ name: string; runtime: boolean }> }>;
};

describe('the entry points', () => {
  const entries = entryPointExports();

  it('the root exports at most 70 symbols: what driver authors, the CLI, calibration and tests need is on subpaths', () => {
    const rootApi = entries.find((entry) => entry.name === 'nestjs-judgment');
    expect(rootApi?.exported.length).toBeLessThanOrEqual(70);
  });

  it('package.json lists each entry point once, and tsconfig and Jest resolve the same ones', () => {
    const text = readFileSync(join(__dirname, 'package.json'), 'utf8');
    const { exports } = JSON.parse(text) as { exports: Record<string, unknown> };
    const subpaths = Object.keys(exports).filter((key) => key !== './package.json');
    for (const subpath of subpaths) {
      expect({ subpath, times: text.split(`"${subpath}":`).length - 1 }).toEqual({ subpath, times: 1 });
    }
    const named = (subpath: string) => (subpath === '.' ? 'nestjs-judgment' : `nestjs-judgment/${subpath.slice(2)}`);
    expect(subpaths.map(named).sort()).toEqual(entries.map((entry) => entry.name).sort());
    const jest = require(join(repository, 'jest.config.js')) as { projects: Array<{ moduleNameMapper: object }> };
    const mapped = Object.keys(jest.projects[0].moduleNameMapper).map((pattern) => pattern.replace(/^\^|\$$/g, ''));
    expect(mapped.sort()).toEqual(entries.map((entry) => entry.name).sort());
  });
});
