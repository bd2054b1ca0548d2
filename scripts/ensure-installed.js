// Installs the dependencies (`npm ci`) on a fresh clone, so `npm run demo`, `npm test` and `npm run pack:library` are
// the only commands needed after cloning.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');

module.exports = function ensureInstalled() {
  if (existsSync(join(root, 'node_modules', '.package-lock.json'))) return;
  console.log('First run: installing the dependencies (npm ci)...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (install.status !== 0) process.exit(install.status ?? 1);
};
