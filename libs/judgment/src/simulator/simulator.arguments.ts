import { parseArgs } from 'node:util';
import { JudgmentError } from '../errors';
import { OPENAI_BEHAVIOURS, type OpenAiBehaviour } from './openai-answers';
import type { OpenAiDialect } from './openai-simulator';
import type { SimulatorLimits, SimulatorMode } from './simulator.types';

/** What the bin serves: a Jev wire dialect, or the OpenAI Chat Completions wire. */
export type BinMode = SimulatorMode | 'openai';

/** The wire dialects the bin serves: the Jev wire, laya-serve's dialect of it, OpenAI Chat Completions. */
export const BIN_MODES: readonly BinMode[] = ['jev', 'laya', 'openai'];

/** The simulator bin was given a flag or an environment variable it cannot use. */
export class InvalidSimulatorArguments extends JudgmentError {}

/** What the `judgment-jev-simulator` bin was asked to do. */
export interface SimulatorCommand {
  readonly help: boolean;
  readonly port: number;
  readonly host: string;
  readonly latencyMs: number;
  readonly mode: BinMode;
  readonly apiKey: string | undefined;
  readonly model: string | undefined;
  /** openai mode: whose server it answers as; undefined elsewhere. */
  readonly dialect?: OpenAiDialect;
  /** openai mode: how the simulated model answers; undefined elsewhere. */
  readonly behaviour?: OpenAiBehaviour;
  readonly verbose: boolean;
  /** Per-key limits; undefined when no limit flag is given. */
  readonly limits: SimulatorLimits | undefined;
}

/** The bin's usage text. */
export const SIMULATOR_USAGE = `Usage: judgment-jev-simulator [--port N] [--host H] [--latency-ms N] [--mode jev|laya|openai] [--key K] [--model M]
                             [--dialect openai|llama-server] [--behaviour B]
                             [--limit-requests N] [--limit-tokens N] [--limit-window-ms N] [--verbose]

  --port N         port to listen on; 0 picks a free one      (JEV_SIMULATOR_PORT, default 8787)
  --host H         address to bind                             (JEV_SIMULATOR_HOST, default 127.0.0.1)
  --latency-ms N   delay before every answer                   (JEV_SIMULATOR_LATENCY_MS, default 0)
  --mode M         jev, laya (laya-serve dialect) or openai    (JEV_SIMULATOR_MODE, default jev)
                   (openai: Chat Completions at <url>/v1)
  --key K          require Authorization: Bearer K             (JEV_SIMULATOR_KEY, default none)
  --model M        versioned model id it reports               (JEV_SIMULATOR_MODEL, default jev-1.13.0;
                                                               openai: sim-4o-2026-09-17)
  --dialect D      openai mode: answer as openai or llama-server (JEV_SIMULATOR_DIALECT, default openai)
                   (llama-server: token ids, model ignored, no request-id or rate-limit headers)
  --behaviour B    openai mode: ${OPENAI_BEHAVIOURS.join(', ')}
                                                               (JEV_SIMULATOR_BEHAVIOUR, default answer)
  --limit-requests N  answer 429 past N requests per key per window   (JEV_SIMULATOR_LIMIT_REQUESTS)
  --limit-tokens N    answer 429 once a key's window used N input tokens (JEV_SIMULATOR_LIMIT_TOKENS)
  --limit-window-ms N the limits' fixed window, from a key's first request (JEV_SIMULATOR_LIMIT_WINDOW_MS, 60000)
  --verbose        print one line per request                  (JEV_SIMULATOR_VERBOSE=1)
  --help           print this text`;

const FLAGS = {
  port: { type: 'string', env: 'JEV_SIMULATOR_PORT' },
  host: { type: 'string', env: 'JEV_SIMULATOR_HOST' },
  'latency-ms': { type: 'string', env: 'JEV_SIMULATOR_LATENCY_MS' },
  mode: { type: 'string', env: 'JEV_SIMULATOR_MODE' },
  key: { type: 'string', env: 'JEV_SIMULATOR_KEY' },
  model: { type: 'string', env: 'JEV_SIMULATOR_MODEL' },
  dialect: { type: 'string', env: 'JEV_SIMULATOR_DIALECT' },
  behaviour: { type: 'string', env: 'JEV_SIMULATOR_BEHAVIOUR' },
  'limit-requests': { type: 'string', env: 'JEV_SIMULATOR_LIMIT_REQUESTS' },
  'limit-tokens': { type: 'string', env: 'JEV_SIMULATOR_LIMIT_TOKENS' },
  'limit-window-ms': { type: 'string', env: 'JEV_SIMULATOR_LIMIT_WINDOW_MS' },
  verbose: { type: 'boolean', env: 'JEV_SIMULATOR_VERBOSE' },
  help: { type: 'boolean', env: undefined },
} as const;
type Flag = keyof typeof FLAGS;

/**
 * Reads the bin's flags, falling back to the JEV_SIMULATOR_* variables, then to the defaults. Throws
 * InvalidSimulatorArguments naming the flag (or variable) that is unknown, lacks a value or holds a bad one.
 */
export function parseSimulatorArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): SimulatorCommand {
  const flags = readFlags(argv);
  /** The flag's value, else the variable's: with the name to blame when it is invalid. */
  const setting = (flag: Exclude<Flag, 'help' | 'verbose'>): { value: string; source: string } | undefined => {
    const given = flags.get(flag);
    if (given !== undefined) return { value: given, source: `--${flag}` };
    const name = FLAGS[flag].env;
    const value = env[name]?.trim();
    return value ? { value, source: name } : undefined;
  };
  const mode = (setting('mode')?.value ?? 'jev').toLowerCase() as BinMode;
  if (!BIN_MODES.includes(mode)) {
    throw new InvalidSimulatorArguments(`${setting('mode')?.source} must be jev, laya or openai; got "${mode}".`);
  }
  const verboseEnv = env.JEV_SIMULATOR_VERBOSE?.trim().toLowerCase() ?? '';
  const requests = wholeNumber(setting('limit-requests'));
  const tokens = wholeNumber(setting('limit-tokens'));
  const windowMs = wholeNumber(setting('limit-window-ms'));
  const limited = requests !== undefined || tokens !== undefined;
  if (windowMs !== undefined && !limited) {
    throw new InvalidSimulatorArguments(
      `${setting('limit-window-ms')?.source} sets a window without a limit: add --limit-requests or --limit-tokens.`,
    );
  }
  return {
    ...openAiSettings(mode, setting('dialect'), setting('behaviour')),
    help: flags.has('help'),
    port: wholeNumber(setting('port'), 65_535) ?? 8787,
    host: setting('host')?.value ?? '127.0.0.1',
    latencyMs: wholeNumber(setting('latency-ms')) ?? 0,
    mode,
    apiKey: setting('key')?.value,
    model: setting('model')?.value,
    verbose: flags.has('verbose') || ['1', 'true', 'yes', 'on'].includes(verboseEnv),
    limits: limited ? { requests, tokens, windowMs } : undefined,
  };
}

/** The openai mode's dialect and behaviour; either flag in another mode is a mistake. */
function openAiSettings(
  mode: BinMode,
  dialect: { value: string; source: string } | undefined,
  behaviour: { value: string; source: string } | undefined,
): { dialect?: OpenAiDialect; behaviour?: OpenAiBehaviour } {
  const given = dialect ?? behaviour;
  if (mode !== 'openai') {
    if (given === undefined) return {};
    throw new InvalidSimulatorArguments(`${given.source} applies to --mode openai only; the mode is ${mode}.`);
  }
  if (dialect !== undefined && dialect.value !== 'openai' && dialect.value !== 'llama-server') {
    throw new InvalidSimulatorArguments(`${dialect.source} must be openai or llama-server; got "${dialect.value}".`);
  }
  if (behaviour !== undefined && !(OPENAI_BEHAVIOURS as readonly string[]).includes(behaviour.value)) {
    throw new InvalidSimulatorArguments(
      `${behaviour.source} must be one of ${OPENAI_BEHAVIOURS.join(', ')}; got "${behaviour.value}".`,
    );
  }
  return {
    dialect: (dialect?.value as OpenAiDialect | undefined) ?? 'openai',
    behaviour: (behaviour?.value as OpenAiBehaviour | undefined) ?? 'answer',
  };
}

function readFlags(argv: readonly string[]): Map<Flag, string> {
  const options = Object.fromEntries(Object.entries(FLAGS).map(([flag, { type }]) => [flag, { type }]));
  // Not strict: the tokens are checked below, so each mistake is reported in this bin's own words.
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const flags = new Map<Flag, string>();
  for (const token of tokens) {
    if (token.kind === 'positional') {
      throw new InvalidSimulatorArguments(
        `Unexpected argument "${token.value}": every setting is a flag, like --port 4010.`,
      );
    }
    if (token.kind !== 'option') continue;
    const name = token.name;
    if (!Object.hasOwn(FLAGS, name)) {
      throw new InvalidSimulatorArguments(
        `Unknown flag ${token.rawName}. The simulator accepts ${Object.keys(FLAGS)
          .map((flag) => `--${flag}`)
          .join(', ')}.`,
      );
    }
    const flag = name as Flag;
    if (FLAGS[flag].type === 'boolean') {
      if (token.value !== undefined) {
        throw new InvalidSimulatorArguments(`--${flag} takes no value; got "${token.value}". Leave the value out.`);
      }
      flags.set(flag, '');
    } else {
      if (token.value === undefined || token.value === '') {
        throw new InvalidSimulatorArguments(`--${flag} needs a value, like --${flag} ${example(flag)}.`);
      }
      flags.set(flag, token.value);
    }
  }
  return flags;
}

function wholeNumber(setting: { value: string; source: string } | undefined, max?: number): number | undefined {
  if (setting === undefined) return undefined;
  const value = Number(setting.value);
  if (!/^\d+$/.test(setting.value) || (max !== undefined && value > max)) {
    const range = max === undefined ? 'of 0 or more' : `from 0 to ${max}`;
    throw new InvalidSimulatorArguments(`${setting.source} must be a whole number ${range}; got "${setting.value}".`);
  }
  return value;
}

function example(flag: Flag): string {
  return {
    port: '4010',
    host: '127.0.0.1',
    'latency-ms': '50',
    mode: 'laya',
    key: 'local-key',
    model: 'jev-1.13.0',
    dialect: 'llama-server',
    behaviour: 'chatty',
    'limit-requests': '1200',
    'limit-tokens': '400000',
    'limit-window-ms': '60000',
  }[flag as Exclude<Flag, 'help' | 'verbose'>];
}
