/**
 * Standalone Jev simulator.
 *   node -r ./scripts/register.js libs/judgment/src/simulator/main.ts
 * Env: JEV_SIMULATOR_PORT (8787), JEV_SIMULATOR_HOST (127.0.0.1), JEV_SIMULATOR_LATENCY_MS (0),
 *      JEV_SIMULATOR_MODE (jev|laya), JEV_SIMULATOR_KEY (optional bearer), JEV_SIMULATOR_MODEL (jev-1.13.0),
 *      JEV_SIMULATOR_VERBOSE (1 → one line per request on stdout).
 */
import { JevSimulator } from './jev-simulator';
import type { SimulatorMode } from './simulator.types';

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'`);
  return value;
}

async function main(): Promise<void> {
  const mode = (process.env.JEV_SIMULATOR_MODE || 'jev').toLowerCase();
  if (mode !== 'jev' && mode !== 'laya') throw new Error(`JEV_SIMULATOR_MODE must be jev or laya, got '${mode}'`);
  const port = intEnv('JEV_SIMULATOR_PORT', 8787);
  const host = process.env.JEV_SIMULATOR_HOST || '127.0.0.1';
  const verbose = ['1', 'true', 'yes'].includes((process.env.JEV_SIMULATOR_VERBOSE || '').toLowerCase());
  const sim = new JevSimulator({
    mode: mode as SimulatorMode,
    latencyMs: intEnv('JEV_SIMULATOR_LATENCY_MS', 0),
    apiKey: process.env.JEV_SIMULATOR_KEY || undefined,
    model: process.env.JEV_SIMULATOR_MODEL || undefined,
    logRequests: false,
    onRequest: verbose
      ? (e) => console.log(`${new Date(e.at).toISOString()} ${e.method} ${e.path} ${e.status}`)
      : undefined,
  });
  const url = await sim.start(port, host);
  console.log(`Jev simulator (${mode} mode) listening on ${url}`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`Jev simulator: ${signal}, shutting down`);
    sim.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(`Jev simulator failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
