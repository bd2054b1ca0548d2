// Runs TypeScript sources directly (demo, CLI, simulator, benchmarks): SWC with decorator metadata and the
// tsconfig `paths` that make `nestjs-judgment` resolve to libs/judgment, exactly as tests and type-check see it.
process.env.SWC_NODE_PROJECT =
  process.env.SWC_NODE_PROJECT || require('node:path').join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
