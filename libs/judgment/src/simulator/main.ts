#!/usr/bin/env node
/**
 * The `judgment-jev-simulator` bin: the Jev simulator as a standalone server.
 *   npx judgment-jev-simulator --port 4010 [--host 127.0.0.1] [--latency-ms N] [--mode jev|laya|openai] [--key K] [--model M] [--verbose]
 * Unset flags fall back to the JEV_SIMULATOR_* variables. Exit codes: 2 for a bad flag or variable, 1 when the
 * server cannot listen; SIGINT/SIGTERM close it (hanging sockets included) and exit 0.
 */
import {
  InvalidSimulatorArguments,
  parseSimulatorArgs,
  SIMULATOR_USAGE,
  type SimulatorCommand,
} from './simulator.arguments';
import { startOpenAiSimulator } from './openai-simulator';
import { startJevSimulator } from './start-jev-simulator';

/** Said when the server is up: its answers are a stand-in, not a judgment (a new user could read them as one). */
const MEANINGLESS_ANSWERS =
  'Its answers are made up from a hash of the text: the same text always gets the same answer, but it means ' +
  'nothing and judges nothing. Write markers such as [[abusive=0.9]] in the text to choose the answers.';

async function main(): Promise<void> {
  let command: SimulatorCommand;
  try {
    command = parseSimulatorArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof InvalidSimulatorArguments)) throw error;
    console.error(`judgment-jev-simulator: ${error.message}\n\n${SIMULATOR_USAGE}`);
    process.exit(2);
  }
  if (command.help) {
    console.log(SIMULATOR_USAGE);
    return;
  }
  const { port, host, verbose, mode, ...options } = command;
  const served = {
    ...options,
    port,
    host,
    // The standalone server keeps no request log, so it does not grow in memory.
    logRequests: false,
    onRequest: verbose
      ? (entry: { at: number; method: string; path: string; status: number }) =>
          console.log(`${new Date(entry.at).toISOString()} ${entry.method} ${entry.path} ${entry.status}`)
      : undefined,
  };
  const sim = mode === 'openai' ? await startOpenAiSimulator(served) : await startJevSimulator({ ...served, mode });
  console.log(`Jev simulator (${sim.mode} mode) listening on ${sim.url}`);
  console.log(MEANINGLESS_ANSWERS);

  const shutdown = (signal: string) => {
    console.log(`Jev simulator: ${signal}, shutting down`);
    sim.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`Jev simulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
