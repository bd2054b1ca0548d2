import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');
const CLI_ONLY = ['commander', 'cli-table3', 'cli-progress'];

/** The CLI-only packages a fresh Node process has loaded after requiring `entry` (a source file of the library). */
function cliPackagesLoadedBy(entry: string): string[] {
  // A real process: Jest's module registry is not Node's, and require.cache is what an app's process would hold.
  const script =
    `require(${JSON.stringify(join(ROOT, entry))});` +
    `const names = ${JSON.stringify(CLI_ONLY)};` +
    `const loaded = Object.keys(require.cache).map((file) => /node_modules[\\\\/]([^\\\\/]+)[\\\\/]/.exec(file)?.[1]);` +
    `process.stdout.write(JSON.stringify(names.filter((name) => loaded.includes(name))));`;
  const output = execFileSync(process.execPath, ['-r', './scripts/register.js', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(output) as string[];
}

describe('CLI-only dependencies', () => {
  it('are not loaded by the root entry point', () => {
    expect(cliPackagesLoadedBy('libs/judgment/src/index.ts')).toEqual([]);
  });

  it('are loaded by the /cli entry point', () => {
    expect(cliPackagesLoadedBy('libs/judgment/src/cli/index.ts')).toEqual(CLI_ONLY);
  });
});
