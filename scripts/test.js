#!/usr/bin/env node
// `npm test` — every suite (unit and end to end), one at a time. On a fresh clone it first installs the dependencies.
// Arguments pass through to Jest: `npm test -- test/judge`.
const { spawnSync } = require('node:child_process');
require('./ensure-installed')();

const jest = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--runInBand', ...process.argv.slice(2)], {
  cwd: require('node:path').join(__dirname, '..'),
  stdio: 'inherit',
});
process.exit(jest.status ?? 1);
