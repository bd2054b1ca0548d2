import { JevSimulator } from './jev-simulator';
import type { Fault, JevSimulatorOptions } from './simulator.types';

/** Options of `startJevSimulator()`: the simulator's options, where to listen, and faults to serve first. */
export interface StartJevSimulatorOptions extends JevSimulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Address to bind; default 127.0.0.1, so a connection pointed at it needs no key. */
  host?: string;
  /** Faults served, in order, to the first decision requests (`POST /v1/systemone`); more with `fail()`. */
  faults?: readonly Fault[];
}

/** A simulator that is listening: its base URL is known until `stop()`. */
export type RunningJevSimulator = JevSimulator & { readonly url: string };

/**
 * Starts a Jev simulator for a test and resolves once it listens:
 * `const sim = await startJevSimulator({ latencyMs: 20 })`, point `engines.jev.url` at `sim.url`, `await sim.stop()`.
 */
export async function startJevSimulator(options: StartJevSimulatorOptions = {}): Promise<RunningJevSimulator> {
  const { port = 0, host = '127.0.0.1', faults = [], ...simulatorOptions } = options;
  const simulator = new JevSimulator(simulatorOptions);
  for (const fault of faults) simulator.fail(fault);
  await simulator.start(port, host);
  return simulator as RunningJevSimulator;
}
