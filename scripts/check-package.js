#!/usr/bin/env node
// `npm run check:package` — packs the library as it would be published and checks the tarball with the ecosystem's
// tools: publint (package.json fields, exports, files) and Are the Types Wrong (types under every resolution mode).
const { execFileSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { packLibrary } = require('./pack-library');

const bin = (name) => join(__dirname, '..', 'node_modules', '.bin', name);
/** Runs one checker; its own output says what is wrong, so a failure needs no stack trace. */
function run(name, args) {
  try {
    execFileSync(bin(name), args, { stdio: 'inherit' });
  } catch {
    throw new Error(`${name} found problems in the packed tarball (see above).`);
  }
}

const folder = mkdtempSync(join(tmpdir(), 'nestjs-judgment-pack-'));
try {
  const pack = packLibrary(folder);
  console.log(`packed ${pack.tarball}: ${pack.size} bytes, ${pack.entryCount} files (${pack.unpackedSize} unpacked)`);
  const missing = [
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
    'skills/README.md',
    'dist/index.js',
    'dist/index.d.ts',
  ].filter((file) => !pack.files.includes(file));
  const unwanted = pack.files.filter((file) => /\.(spec|spec-helpers|type-test)\.|\/fixtures\//.test(file));
  if (missing.length > 0 || unwanted.length > 0) {
    throw new Error(
      `The tarball lacks ${missing.join(', ') || 'nothing'} and holds ${unwanted.join(', ') || 'nothing'} it should not.`,
    );
  }
  run('publint', ['run', pack.tarball, '--strict']);
  // The `node16` profile checks node16 from CommonJS, node16 from ESM and bundler resolution, and skips node10:
  // node10 resolution ignores `exports`, so no subpath (`nestjs-judgment/testing`, ...) can resolve there, and
  // Nest 12 itself (ESM-only) cannot be used under it either.
  run('attw', [pack.tarball, '--profile', 'node16']);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
