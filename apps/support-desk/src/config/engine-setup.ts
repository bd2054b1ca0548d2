import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { type JudgmentModuleOptions, judgmentOptionsFromEnv } from 'nestjs-judgment';
import {
  type JevSimulator,
  type OpenAiSimulator,
  startJevSimulator,
  startOpenAiSimulator,
} from 'nestjs-judgment/simulator';
import type { Env } from './support-desk.config';

/**
 * The Judgment module options from the environment (`judgmentOptionsFromEnv`). In the embedded default — the jev
 * connection is the default one and TYPESAFE_API_KEY is not set — it starts the Jev simulator in-process on a free
 * loopback port and points the jev connection at it, so the real Jev driver runs over real HTTP (a loopback url needs
 * no key). Likewise with JUDGMENT_ENGINE=openai and no OPENAI_BASE_URL: the simulator's OpenAI mode answers the openai
 * connection (its model, unless JUDGMENT_OPENAI_MODEL names one). The simulator stops when the app closes.
 */
export class EngineSetup implements OnApplicationShutdown {
  private constructor(
    readonly options: JudgmentModuleOptions,
    /** The in-process simulator, or null when a real Engine (or another connection) is configured. */
    readonly simulator: JevSimulator | OpenAiSimulator | null,
  ) {}

  static async start(env: Env): Promise<EngineSetup> {
    const options = judgmentOptionsFromEnv(env);
    const engine = options.engine ?? 'jev';
    if (engine === 'openai' && !env.OPENAI_BASE_URL?.trim()) {
      const simulator = await startOpenAiSimulator({ logRequests: false });
      const openai = { ...options.engines?.openai, url: simulator.url };
      openai.model ??= simulator.model;
      return new EngineSetup({ ...options, engines: { ...options.engines, openai } }, simulator);
    }
    const embedded = engine === 'jev' && !env.TYPESAFE_API_KEY?.trim();
    if (!embedded) return new EngineSetup(options, null);
    const simulator = await startJevSimulator({ logRequests: false });
    const engines = { ...options.engines, jev: { ...options.engines?.jev, url: simulator.url } };
    return new EngineSetup({ ...options, engines }, simulator);
  }

  /** Where the default connection points: the simulator's URL, or the configured one. */
  get engineUrl(): string | null {
    const url = this.options.engines?.[this.options.engine ?? 'jev']?.url;
    return typeof url === 'string' ? url : null;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.simulator?.stop();
  }
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
