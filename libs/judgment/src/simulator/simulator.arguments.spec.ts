import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN_MODES, InvalidSimulatorArguments, SIMULATOR_USAGE, parseSimulatorArgs } from './simulator.arguments';

describe('parseSimulatorArgs', () => {
  it('defaults to jev mode on 127.0.0.1:8787 with no key, no latency and no request lines', () => {
    expect(parseSimulatorArgs([], {})).toEqual({
      help: false,
      port: 8787,
      host: '127.0.0.1',
      latencyMs: 0,
      mode: 'jev',
      apiKey: undefined,
      model: undefined,
      verbose: false,
      limits: undefined,
    });
  });

  it('reads per-key limits from flags or variables', () => {
    expect(parseSimulatorArgs(['--limit-requests', '600'], { JEV_SIMULATOR_LIMIT_WINDOW_MS: '10000' }).limits).toEqual({
      requests: 600,
      tokens: undefined,
      windowMs: 10_000,
    });
    // The openai mode enforces the same limits.
    expect(parseSimulatorArgs(['--mode', 'openai', '--limit-tokens', '500'], {}).limits).toEqual({
      requests: undefined,
      tokens: 500,
      windowMs: undefined,
    });
    expect(() => parseSimulatorArgs(['--limit-window-ms', '1000'], {})).toThrow(
      '--limit-window-ms sets a window without a limit',
    );
  });

  it("reads the openai mode's dialect and behaviour, and refuses them in another mode", () => {
    expect(parseSimulatorArgs(['--mode', 'openai'], {})).toMatchObject({ dialect: 'openai', behaviour: 'answer' });
    const env = { JEV_SIMULATOR_BEHAVIOUR: 'collapsed' };
    expect(parseSimulatorArgs(['--mode', 'openai', '--dialect', 'llama-server'], env)).toMatchObject({
      dialect: 'llama-server',
      behaviour: 'collapsed',
    });
    expect(() => parseSimulatorArgs(['--dialect', 'llama-server'], {})).toThrow(
      '--dialect applies to --mode openai only; the mode is jev.',
    );
  });

  it('lets a flag win over its variable', () => {
    const env = { JEV_SIMULATOR_PORT: '9000', JEV_SIMULATOR_MODE: 'jev', JEV_SIMULATOR_KEY: 'env-key' };
    expect(parseSimulatorArgs(['--port=4010', '--mode', 'laya', '--key', 'flag-key'], env)).toMatchObject({
      port: 4010,
      mode: 'laya',
      apiKey: 'flag-key',
    });
  });

  it.each([
    [['--mode', 'grpc'], {}, '--mode must be jev, laya or openai; got "grpc".'],
    [[], { JEV_SIMULATOR_LATENCY_MS: 'slow' }, 'JEV_SIMULATOR_LATENCY_MS must be a whole number of 0 or more'],
    [['--host'], {}, '--host needs a value'],
    [['--verbose=yes'], {}, '--verbose takes no value'],
    [['4010'], {}, 'Unexpected argument "4010"'],
    [['--mode', 'openai', '--dialect', 'vllm'], {}, '--dialect must be openai or llama-server; got "vllm".'],
    [['--mode', 'openai'], { JEV_SIMULATOR_BEHAVIOUR: 'rude' }, 'JEV_SIMULATOR_BEHAVIOUR must be one of answer,'],
  ])('refuses %j %j, naming the flag or variable', (argv, env, message) => {
    const parse = () => parseSimulatorArgs(argv, env);
    expect(parse).toThrow(InvalidSimulatorArguments);
    expect(parse).toThrow(message);
  });
});

describe('the --mode documentation (issue 31)', () => {
  const ROOT = join(__dirname, '..', '..', '..', '..');
  /** The `--mode` row of a Markdown flag table. */
  const modeRow = (file: string) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('|') && line.includes('`--mode'));

  it.each(['README.md', 'libs/judgment/src/simulator/README.md'])(
    '%s names every mode the bin accepts, with what it speaks',
    (file) => {
      const row = modeRow(file);
      expect(row).toBeDefined();
      for (const mode of BIN_MODES) expect(row).toContain(`\`${mode}\``);
      expect(row).toMatch(/\/v1\/systemone/);
      expect(row).toMatch(/laya-serve/);
      expect(row).toMatch(/Chat Completions/);
    },
  );

  it('the usage text names every mode', () => {
    expect(BIN_MODES).toEqual(['jev', 'laya', 'openai']);
    for (const mode of BIN_MODES) expect(SIMULATOR_USAGE).toContain(mode);
  });
});
