#!/usr/bin/env node
// `npm run demo` — runs the support-desk demo (apps/support-desk/src/demo.ts) from its TypeScript sources. On a fresh
// clone it first installs the dependencies (`npm ci`), so it is the only command needed after cloning.
// Arguments pass through: `npm run demo -- --serve` keeps the HTTP API up after the summary.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
if (!existsSync(join(root, 'node_modules', '@swc-node', 'register'))) {
  console.log('First run: installing the dependencies (npm ci)...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (install.status !== 0) process.exit(install.status ?? 1);
}

require('./register');
require('../apps/support-desk/src/demo.ts');
