#!/usr/bin/env node
// `npm run demo` — runs the support-desk demo (apps/support-desk/src/demo.ts) from its TypeScript sources. On a fresh
// clone it first installs the dependencies (`npm ci`).
// Arguments pass through: `npm run demo -- --serve` keeps the HTTP API up after the summary.
require('./ensure-installed')();
require('./register');
require('../apps/support-desk/src/demo.ts');
