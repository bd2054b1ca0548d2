import { type DynamicModule, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { type JudgmentModuleOptions, judgmentOptionsFromEnv } from 'nestjs-judgment';
import {
  type JevSimulator,
  type OpenAiSimulator,
  startJevSimulator,
  startOpenAiSimulator,
} from 'nestjs-judgment/simulator';
import type { Env } from './support-desk.config';

/**
 * The Judgment module options from the environment (`judgmentOptionsFromEnv`), with both connections the demo asks:
 * `jev`, and `openai`, the cheap first tier of post-moderation's escalation cascade (openai, then jev). Without
 * TYPESAFE_API_KEY it starts the Jev simulator in-process on a free loopback port and points the jev connection at it,
 * so the real Jev driver runs over real HTTP (a loopback url needs no key); without OPENAI_BASE_URL it starts the
 * simulator's OpenAI mode likewise for the openai connection (its model, unless JUDGMENT_OPENAI_MODEL names one).
 * JUDGMENT_ENGINE picks the default connection of the other Judgments (jev unless set). The simulators stop when the
 * app closes.
 */
export class EngineSetup implements OnApplicationShutdown {
  private constructor(
    readonly options: JudgmentModuleOptions,
    /** The in-process simulators, each null when its connection points elsewhere. */
    readonly simulators: { readonly jev: JevSimulator | null; readonly openai: OpenAiSimulator | null },
  ) {}

  static async start(env: Env): Promise<EngineSetup> {
    const options = judgmentOptionsFromEnv(env);
    const jev = connectionFromEnv(env, 'jev');
    const openai = connectionFromEnv(env, 'openai');
    const jevSimulator = env.TYPESAFE_API_KEY?.trim() ? null : await startJevSimulator({ logRequests: false });
    if (jevSimulator) jev.url = jevSimulator.url;
    const openAiSimulator = env.OPENAI_BASE_URL?.trim() ? null : await startOpenAiSimulator({ logRequests: false });
    if (openAiSimulator) {
      openai.url = openAiSimulator.url;
      openai.model ??= openAiSimulator.model;
      if (!jevSimulator) {
        new Logger('EngineSetup').warn(
          "post-moderation's first tier asks the simulator's OpenAI mode in-process (no OPENAI_BASE_URL set): its " +
            'answers mean nothing. Set OPENAI_BASE_URL (and OPENAI_API_KEY) to ask a real OpenAI-compatible model.',
        );
      }
    }
    const engines = { ...options.engines, jev, openai };
    return new EngineSetup({ ...options, engines }, { jev: jevSimulator, openai: openAiSimulator });
  }

  /** The default connection's name (JUDGMENT_ENGINE, else jev). */
  get engine(): string {
    return this.options.engine ?? 'jev';
  }

  /** Where a connection points (default: the default one): a simulator's URL, or the configured one. */
  engineUrl(connection = this.engine): string | null {
    const url = this.options.engines?.[connection]?.url;
    return typeof url === 'string' ? url : null;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.simulators.jev?.stop(), this.simulators.openai?.stop()]);
  }
}

/** The options of one Engine connection. */
type ConnectionOptions = NonNullable<JudgmentModuleOptions['engines']>[string];

/** One built-in connection as the environment configures it, also when the environment does not name it. */
function connectionFromEnv(env: Env, name: 'jev' | 'openai'): ConnectionOptions {
  return { ...judgmentOptionsFromEnv({ ...env, JUDGMENT_ENGINE: name }).engines![name] };
}

/** Provides EngineSetup (started once per app) to `JudgmentModule.forRootAsync`. */
@Module({})
export class EngineSetupModule {
  static forRoot(env: Env): DynamicModule {
    return {
      module: EngineSetupModule,
      providers: [{ provide: EngineSetup, useFactory: () => EngineSetup.start(env) }],
      exports: [EngineSetup],
    };
  }
}
