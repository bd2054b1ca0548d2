// Settings of the property (fuzz) tests: a fixed seed and a modest number of runs in CI, so a failure replays
// exactly; `npm run test:fuzz` sets FUZZ_RUNS (and may set FUZZ_SEED) for a larger, nightly-style run.
import type { Parameters } from 'fast-check';

/** fast-check parameters: seed and runs from FUZZ_SEED / FUZZ_RUNS, else the CI defaults. */
export function fuzz(runs = 200): Parameters<unknown> {
  const seed = Number(process.env.FUZZ_SEED ?? 20_261_201);
  const numRuns = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : runs;
  return { seed, numRuns };
}
