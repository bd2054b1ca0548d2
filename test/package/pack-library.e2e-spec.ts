// `npm run pack:library` on a fresh clone (issue 31, point 11): like `npm run demo` and `npm test`, it installs the
// dependencies first (the library's build needs them), then packs. Run in a copy of the repository's scripts and
// manifests with no node_modules, against a stand-in `npm` on the PATH that records what it is asked and does it
// cheaply (the real install and build are what `.ci/run` and `npm run check:package` exercise).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const COPIED = ['package.json', 'scripts/ensure-installed.js', 'scripts/pack-library.js', 'libs/judgment/package.json'];

/** A stand-in npm: logs each call (cwd and arguments); `ci` installs nothing but the marker, `pack` writes a tarball. */
const FAKE_NPM = `#!/usr/bin/env node
const { appendFileSync, mkdirSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const args = process.argv.slice(2);
appendFileSync(process.env.NPM_LOG, JSON.stringify({ cwd: process.cwd(), args }) + '\\n');
if (args[0] === 'ci') {
  mkdirSync(join(process.cwd(), 'node_modules'), { recursive: true });
  writeFileSync(join(process.cwd(), 'node_modules', '.package-lock.json'), '{}');
} else if (args[0] === 'pack') {
  const destination = args[args.indexOf('--pack-destination') + 1];
  writeFileSync(join(resolve(destination), 'nestjs-judgment-0.2.0.tgz'), 'tarball');
  if (args.includes('--json')) {
    process.stdout.write(JSON.stringify([{ filename: 'nestjs-judgment-0.2.0.tgz', size: 7, unpackedSize: 7, entryCount: 1, files: [] }]));
  }
}
`;

let clone: string;

beforeEach(() => {
  clone = mkdtempSync(join(tmpdir(), 'judgment-fresh-clone-'));
  for (const file of COPIED) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(clone, file));
  }
  mkdirSync(join(clone, 'bin'));
  writeFileSync(join(clone, 'bin', 'npm'), FAKE_NPM);
  chmodSync(join(clone, 'bin', 'npm'), 0o755);
});

afterEach(() => rmSync(clone, { recursive: true, force: true }));

function packOnFreshClone(): { status: string; calls: Array<{ cwd: string; args: string[] }> } {
  const log = join(clone, 'npm.log');
  writeFileSync(log, '');
  // The real npm runs the script; the script's own npm calls find the stand-in first on the PATH.
  const realNpm = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  const run = spawnSync(realNpm, ['run', '--silent', 'pack:library'], {
    cwd: clone,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(clone, 'bin')}:${process.env.PATH}`, NPM_LOG: log },
  });
  const calls = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { cwd: string; args: string[] });
  return { status: run.status === 0 ? 'ok' : `exit ${run.status}: ${run.stderr}`, calls };
}

it('installs the dependencies at the root before it packs, then writes the tarball at the root', () => {
  const { status, calls } = packOnFreshClone();
  expect(status).toBe('ok');
  expect(calls.map(({ args }) => args[0])).toEqual(['ci', 'pack']);
  expect(calls[0].cwd).toBe(clone);
  expect(calls[1].cwd).toBe(join(clone, 'libs', 'judgment'));
  expect(existsSync(join(clone, 'nestjs-judgment-0.2.0.tgz'))).toBe(true);
});

it('does not install again once the dependencies are there', () => {
  packOnFreshClone();
  const { status, calls } = packOnFreshClone();
  expect(status).toBe('ok');
  expect(calls.map(({ args }) => args[0])).toEqual(['pack']);
});
